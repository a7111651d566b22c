"""Study material: plans, sessions, questions, grading and the LLM's checked phrasing. No Django imports.

``curriculum`` maps a book's chunks to modules and sessions; ``definitions`` finds what a book defines;
``quiz`` makes questions from it; ``grading`` grades a learner's typed answer; ``phrasing`` lets an LLM
word titles, objectives and questions, each checked against the text. Imports every other stage but
``runtime``.
"""
