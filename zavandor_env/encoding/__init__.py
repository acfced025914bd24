"""zavandor_env/encoding."""
