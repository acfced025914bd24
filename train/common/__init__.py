"""What every trainer shares: run folders, checkpoints, evaluation, charts, pool, rating."""
