"""The LLM maze benchmark (MazeBench's text2d, image2d, ai and partial-observe modes) on the run engine."""
