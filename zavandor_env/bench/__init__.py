"""zavandor_env/bench."""
