"""The fixed text the tiny tokenizers are trained on, and the texts used to check that a
GGUF's vocabulary tokenizes like the tokenizer it was made from.

Written for this project; varied on purpose (prose, contractions, numbers, code, accents,
CJK, emoji, whitespace runs) so the learned merges touch every pre-tokenizer branch.
"""

TRAINING_TEXT = """\
The tiny model reads a short story. It's a story about a lighthouse keeper who counted ships.
Every night she wrote the numbers down: 3 ships, 12 ships, 147 ships, 2048 ships.
She'd say "the sea is a ledger" and laugh; they're all gone now, we've kept the book.
I'll tell you what I'm sure of: the lamp was lit at 19:45 and put out at 06:30.

Models learn from text like this, one token at a time. A token is a piece of a word,
a whole word, a number or a run of spaces. The model sees token ids, not letters.
Counting, reading, writing and thinking are different things; the model only predicts.
Predict the next token, then the next, then the next: that is all it ever does.

def count_ships(log):
    total = 0
    for line in log.splitlines():
        if line.startswith("ships:"):
            total += int(line.split(":")[1])
    return total

for (int i = 0; i < n; ++i) { sum += x[i] * y[i]; }
if (a != b && c >= d) return -1;   // early exit
    indented    with    several     spaces
tabs\tand\ttabs\tagain

Caf\u00e9, na\u00efve, \u00fcber, se\u00f1or, gar\u00e7on: accents travel far.
Stra\u00dfe und Gr\u00fc\u00dfe aus M\u00fcnchen. \u00c9t\u00e9 \u00e0 Paris, \u00e7a va?
\u65e5\u672c\u8a9e\u306e\u6587\u7ae0\u3082\u5c11\u3057\u3002\u6771\u4eac\u3068\u5927\u962a\u3002
\u4e2d\u6587\u4e5f\u6709\u4e00\u70b9\u3002\u4f60\u597d\uff0c\u4e16\u754c\u3002
Emoji too: \U0001f680 \U0001f30a \U0001f4a1 \u2705 and a heart \u2764\ufe0f.
Numbers: 0 1 2 3 4 5 6 7 8 9 10 100 1000 10000 3.14159 2.71828 1e-5 0x1F.
The quick brown fox jumps over the lazy dog. THE QUICK BROWN FOX! the quick brown fox?
Questions? Answers. Lists: apples, oranges, pears; tea, coffee, water.
She counted, he counted, they counted; the counting never ended.
Keepers keep lamps, lamps keep ships, ships keep moving.
"""

# Texts whose token ids (from the reference tokenizer) travel in the manifest, so a reader
# of the GGUF vocabulary can be checked against them.
TOKENIZER_CHECK_TEXTS = [
    "Hello world, the tiny model counts ships.",
    "She'd say: 2048 ships, isn't it?",
    "Caf\u00e9 \u00fcber \u65e5\u672c\u8a9e \U0001f680!",
    "def f(x):\n    return x  *  2\n",
]

# The short prompt the logits are computed for (about seven tokens).
SHORT_PROMPT_TEXT = "She counted 12 ships."
