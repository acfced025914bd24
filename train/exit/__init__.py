"""Expert iteration (``trainer: exit``): the network-guided search plays, the network learns."""
