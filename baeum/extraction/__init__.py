"""Extraction: from an uploaded file to pages, tables, structure and chunks. No Django imports.

``readers`` reads PDF, text and Markdown in resource-limited child processes (``pdfworker``); ``ocr``
recognises scanned pages with Tesseract (``ocrworker``); ``office`` converts Office documents
(``officeworker``); ``pageimage`` renders a page picture; ``tables`` finds tables and footnotes;
``structure`` finds the outline; ``chunking`` cuts pages into page-aware chunks. Imports ``language``.
"""
