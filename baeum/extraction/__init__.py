"""Extraction: from an uploaded file to pages, tables, structure and chunks. No Django imports.

``readers`` reads PDF, text and Markdown in resource-limited child processes (``children``,
``pdfworker``); ``ocr`` recognises scanned pages with Tesseract (``ocrworker``); ``office`` reads Office
and Hancom documents in a child (``officeworker``, which checks the archive with ``office_archive`` and
reads it with ``office_formats``); ``pageimage`` renders a page picture; ``tables`` finds tables and
footnotes (``tables_report`` measures them from the command line); ``lines`` reads what a line is (a
heading, code, a running head); ``structure`` finds the outline; ``chunking`` cuts pages into chunks, and
``pages`` says which page a quote of one stands on. Imports ``language``.
"""
