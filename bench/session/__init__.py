"""One solve session: a puzzle prepared once (settings settled, the cover encoded or taken from the cache),
then solved by an engine, split or not.
"""
