"""zavandor_env/render."""
