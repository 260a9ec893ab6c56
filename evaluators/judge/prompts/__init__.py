"""Prompt template files of the VLM judges (a package so that installs ship the .txt files)."""
