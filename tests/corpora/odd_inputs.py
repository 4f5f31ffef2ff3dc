"""200 odd texts for the export fuzz test (issue #37), generated from a fixed seed.

Whitespace runs (spaces, tabs, ``\\r``, ``\\r\\n``, U+3000, U+00A0, U+2028, ...), zero-width and
control characters, emoji (ZWJ sequences, flags, skin tones, keycaps), mixed scripts (CJK, Arabic,
Devanagari, Cyrillic, combining marks, not NFC-normalised), a 5,000-character token, empty and
punctuation-only texts, long unpunctuated text; each kind alone and mixed into English sentences.
"""
from __future__ import annotations

import random
from typing import List

SEED = 37
N_INPUTS = 200

WHITESPACE = [" ", "  ", "\t", "\r", "\r\n", "\n", "\n\n", "\u3000", "\u00a0", "\u2028", "\u2029", "\x0b",
              "\x0c", "\x1c", "\x85", "\u2009", "\u202f", " \t \r\n\u3000 "]
ZERO_WIDTH = ["\u200b", "\u200c", "\u200d", "\ufeff", "\u2060", "\u00ad", "\u200e", "\u202e"]
CONTROL = ["\x00", "\x01", "\x07", "\x08", "\x1b", "\x7f", "\x9b"]
EMOJI = ["😀", "👍🏽", "👩\u200d👩\u200d👧", "🇫🇷", "🇯🇵", "1\ufe0f\u20e3", "❤\ufe0f", "🏳\ufe0f\u200d🌈", "🤷\u200d♀\ufe0f",
         ":)", ":-(", "<3", "¯\\_(ツ)_/¯"]
SCRIPTS = ["東京は大きい都市です。", "我爱你", "مرحبا بالعالم", "नमस्ते दुनिया", "Привет, мир!", "e\u0301te\u0301",
           "Ａｂｃ１２３", "ḁ̶̧͖̬̈́͆", "שלום", "한국어 문장", "ไทย", "ᚠᚢᚦ"]
PUNCT = [".", "...", "?!", "()", "[[", "))", "-", "--", "—", "\"", "'", "«»", "/", "\\", "|", "#", "_", "*"]
WORDS = ["the", "dog", "barked", "at", "a", "cat", "and", "then", "we", "left", "quickly", "I", "don't",
         "know", "Mr.", "Smith", "said", "U.S.", "cannot", "it's", "New", "York", "e-mail", "http://x.org/a?b=c"]
SENTENCES = ["The dog barked.", "I don't know.", "Mr. Smith left New York yesterday.", "Was it good?",
             "We gave the book to Mary.", "Stop!"]


def _pick(rng: random.Random, items: List[str], k: int) -> List[str]:
    return [rng.choice(items) for _ in range(k)]


def _mixed(rng: random.Random) -> str:
    """English words and sentences with odd pieces between them."""
    pieces: List[str] = []
    for _ in range(rng.randint(1, 8)):
        kind = rng.random()
        if kind < 0.35:
            pieces.append(rng.choice(SENTENCES))
        elif kind < 0.55:
            pieces.append(" ".join(_pick(rng, WORDS, rng.randint(1, 5))))
        elif kind < 0.65:
            pieces.append(rng.choice(EMOJI))
        elif kind < 0.75:
            pieces.append(rng.choice(SCRIPTS))
        elif kind < 0.82:
            pieces.append(rng.choice(PUNCT) * rng.randint(1, 3))
        elif kind < 0.9:
            pieces.append(rng.choice(ZERO_WIDTH))
        else:
            pieces.append(rng.choice(CONTROL))
        pieces.append(rng.choice(WHITESPACE) if rng.random() < 0.6 else rng.choice([" ", ""]))
    text = "".join(pieces)
    if rng.random() < 0.3:
        text = rng.choice(WHITESPACE) + text
    if rng.random() < 0.4:
        text += rng.choice(WHITESPACE)
    return text


def odd_inputs(n: int = N_INPUTS, seed: int = SEED) -> List[str]:
    """``n`` odd texts; the same ones at every call (seeded)."""
    rng = random.Random(seed)
    fixed = [
        "",
        " ",
        "  ",
        "\t",
        "\r",
        "\r\n",
        "\u3000",
        "\u00a0",
        "\n\n\n",
        " \t\r\n\u3000\u00a0\u2028 ",
        "Hello world.  ",
        "Hi.\t",
        "Dogs bark.\r",
        "Cats\u3000meow.\u3000",
        "First.\n\n\nSecond.\t\t",
        "\tLeading tab.",
        "a" * 5000,
        "The " + "x" * 5000 + " token is long.",
        " ".join(_pick(rng, WORDS, 400)),  # long unpunctuated text
        "...",
        "?!?!",
        "( ( ( ) ) )",
        "-LRB- -RRB- ( ) [ ] { }",
        "👩\u200d👩\u200d👧 🇫🇷 yes",
        "😀😀😀",
        "東京は大きい都市です。مرحبا नमस्ते",
        "\x00\x01\x07",
        "a\x07b c\x1bd.",
        "\u200b",
        "word\u200bword \ufeffBOM",
        "e\u0301te\u0301 \u00e9t\u00e9.",
        "tab\tinside\tsentence and\rcarriage return.",
        "line\u2028separator\u2029paragraph.",
        "no\u00a0break\u00a0space here.",
        "I can't; we won't!  ",
        "|pipe| back\\slash # hash = sign",
    ]
    texts = list(fixed)
    while len(texts) < n:
        roll = rng.random()
        if roll < 0.08:
            texts.append("".join(_pick(rng, WHITESPACE, rng.randint(1, 4))))
        elif roll < 0.14:
            texts.append("".join(_pick(rng, PUNCT, rng.randint(1, 6))))
        elif roll < 0.2:
            texts.append(" ".join(_pick(rng, EMOJI, rng.randint(1, 4))))
        elif roll < 0.26:
            texts.append(" ".join(_pick(rng, SCRIPTS, rng.randint(1, 3))))
        else:
            texts.append(_mixed(rng))
    return texts[:n]
