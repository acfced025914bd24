"""Self-play MaskablePPO (``trainer: ppo``) against a pool of snapshots and agent specs."""
