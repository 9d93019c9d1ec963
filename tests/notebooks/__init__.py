"""The notebooks: each solution full marks, each blank zero, every wrong-answer variant loses, and each notebook's own demos."""
