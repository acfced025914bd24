"""zavandor_env/eval."""
