"""Writes of the chat app."""
