"""Language: text in Korean and English, read once and the same way everywhere. No Django imports.

``text`` normalises extracted text, splits sentences and estimates tokens; ``analysis`` turns text into
search terms (Kiwi morphemes for Korean, stems for English) and knows function words, particles and
question frame words; ``questions`` reads what a question asks; ``glossary`` finds the English a Korean
book gives its terms ("분기 명령 (branch instruction)"); ``lexicon`` is the one home of the word lists
(pointing words, naming verbs, ordinals) in both languages. Imports nothing else of ``baeum``.
"""
