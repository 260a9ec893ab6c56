"""The LLM maze benchmark (MazeBench's text2d and image2d modes) on the run engine, and its sandboxes."""
