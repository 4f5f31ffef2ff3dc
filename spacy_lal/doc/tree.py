"""Constituency trees: PTB brackets <-> :class:`Tree` <-> labelled spans.

Every traversal here is iterative: treebanks contain (and parsers can produce) trees deeper than
Python's recursion limit.
"""

from __future__ import annotations

import operator
import re
from itertools import zip_longest
from typing import Iterable, Iterator, List, Optional, Sequence, Tuple

LabelledSpan = Tuple[int, int, Tuple[str, ...]]

#: Tag given to words that have no POS tag: bare words in untagged trees, tokens with an empty
#: ``tag_`` in the Doc API. "XX" is OntoNotes' tag for "unknown".
UNTAGGED = "XX"
#: Root labels of the wrapper bracket that :meth:`Tree.normalize` removes.
WRAPPER_LABELS = frozenset({"TOP", "ROOT", ""})
EMPTY_ELEMENT = "-NONE-"
#: Tag of spaCy's whitespace tokens (as spaCy's taggers give them): they are no words of any
#: treebank; stored trees keep them as leaves for token alignment, the printed forms drop them.
WHITESPACE_TAG = "_SP"

_ESCAPES = {"(": "-LRB-", ")": "-RRB-", "{": "-LCB-", "}": "-RCB-", "[": "-LSB-", "]": "-RSB-"}
_UNESCAPES = {escaped: char for char, escaped in _ESCAPES.items()}
# Escapes are replaced inside words too ("(NFP :-RRB-)" is the word ":)"): a bracket anywhere in a
# written word would make the output unreadable.
_ESCAPE_RE = re.compile("|".join(re.escape(char) for char in _ESCAPES))
_UNESCAPE_RE = re.compile("|".join(_UNESCAPES))
# One token per preterminal "(TAG word)" (groups 1, 2), opening bracket with its label "(LABEL"
# (group 3), bare word (group 4), or lone "(" / ")": few tokens, so a fast reader.
_TOKEN_RE = re.compile(r"\(\s*([^\s()]+)\s+([^\s()]+)\s*\)|\(\s*([^\s()]+)|([^\s()]+)|[()]")
_PRETERMINAL, _OPEN, _WORD = 2, 3, 4  # match.lastindex of each kind of token
_FUNCTION_TAG_RE = re.compile(r"[-=]")
_BAD_LABEL_RE = re.compile(r"[\s()]")
_SPACE_RE = re.compile(r"\s")


def escape_word(word: str) -> str:
    """Write the brackets of ``word`` as PTB escapes ("(" -> "-LRB-")."""
    return _ESCAPE_RE.sub(lambda m: _ESCAPES[m.group()], word)


def unescape_word(word: str) -> str:
    """Inverse of :func:`escape_word` ("-LRB-" -> "(")."""
    return _UNESCAPE_RE.sub(lambda m: _UNESCAPES[m.group()], word)


def strip_function_tags(label: str) -> str:
    """Phrase label without function tags and indices: "NP-SBJ-1" -> "NP", "NP=2" -> "NP".

    Labels that start with "-" ("-NONE-", "-LRB-") are kept whole.
    """
    if label.startswith("-"):
        return label
    return _FUNCTION_TAG_RE.split(label, 1)[0] or label


class TreeFormatError(ValueError):
    """Malformed bracketed tree. ``source`` is the file name (or "<string>"), ``line`` 1-based."""

    def __init__(self, source: str, line: int, expected: str, found: str) -> None:
        super().__init__(f"{source}, line {line}: expected {expected}, found {found}")
        self.source = source
        self.line = line


class Tree:
    """A constituency tree node.

    A preterminal (POS-tagged word) has ``word`` set (unescaped: "(" not "-LRB-"), ``label`` = its tag
    (kept as written: "-LRB-") and no children; any other node has children and no word.
    """

    __slots__ = ("label", "children", "word")

    def __init__(self, label: str, children: Iterable[Tree] = (), word: Optional[str] = None) -> None:
        self.label = label
        self.children: List[Tree] = list(children)
        self.word = word
        if (word is None) == (not self.children):
            raise ValueError("a Tree has either a word (a preterminal) or children, not both or neither")

    @property
    def is_preterminal(self) -> bool:
        return self.word is not None

    # -- reading and writing -----------------------------------------------------------------

    @classmethod
    def from_string(cls, text: str, *, tagged: bool = True) -> Tree:
        """Read exactly one bracketed tree (it may span several lines). See :func:`read_trees`."""
        trees = list(_parse(text, "<string>", tagged, single=True))
        if not trees:
            raise TreeFormatError("<string>", _line_of(text, len(text)), "'('", "end of input")
        return trees[0]

    def to_string(self) -> str:
        """One-line PTB bracketing; words escaped, labels as stored."""
        parts: List[str] = []
        stack: List[Optional[Tree]] = [self]
        while stack:
            node = stack.pop()
            if node is None:
                parts.append(")")
            elif node.word is not None:
                _check_writable(node.label, "tag", _BAD_LABEL_RE)
                _check_writable(node.word, "word", _SPACE_RE)
                parts.append(f" ({node.label} {escape_word(node.word)})")
            else:
                if node.label:
                    _check_writable(node.label, "label", _BAD_LABEL_RE)
                parts.append(f" ({node.label}")
                stack.append(None)
                stack.extend(reversed(node.children))
        return "".join(parts)[1:]

    def __repr__(self) -> str:
        return f"Tree.from_string({self.to_string()!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Tree):
            return NotImplemented
        return all(a == b for a, b in zip_longest(_signature(self), _signature(other)))

    __hash__ = None  # type: ignore[assignment]  # mutable

    # -- accessors ---------------------------------------------------------------------------

    def leaves(self) -> List[Tree]:
        """The preterminals, left to right."""
        return [node for node in _preorder(self) if node.word is not None]

    def words(self) -> List[str]:
        return [leaf.word for leaf in self.leaves()]  # type: ignore[misc]

    def tags(self) -> List[str]:
        return [leaf.label for leaf in self.leaves()]

    def __len__(self) -> int:
        """Number of words."""
        return len(self.leaves())

    # -- normalization and spans -------------------------------------------------------------

    def normalize(self) -> Tree:
        """A copy without empty elements, function tags, indices and the TOP/ROOT/"" wrapper.

        -NONE- preterminals are removed, then every constituent left without children. Function
        tags are stripped from phrase labels only (see :func:`strip_function_tags`); POS tags are
        kept. A wrapper root with one child is replaced by that child (repeatedly); with several
        children it is kept. Raises ValueError if no word is left.
        """
        values: List[Optional[Tree]] = []
        for node in _postorder(self):
            if node.word is not None:
                keep = node.label != EMPTY_ELEMENT
                values.append(Tree(node.label, word=node.word) if keep else None)
                continue
            count = len(node.children)
            children = [child for child in values[-count:] if child is not None]
            del values[-count:]
            values.append(Tree(strip_function_tags(node.label), children) if children else None)
        root = values[0]
        if root is None:
            raise ValueError(f"tree has no words besides empty elements: {self.to_string()}")
        while root.label in WRAPPER_LABELS and len(root.children) == 1:
            root = root.children[0]
        return root

    def without_whitespace(self) -> Tree:
        """A copy without ``_SP`` leaves (spaCy's whitespace tokens) and the constituents they
        leave empty; the tree itself if it has nothing but such leaves."""
        values: List[Optional[Tree]] = []
        for node in _postorder(self):
            if node.word is not None:
                values.append(node if node.label != WHITESPACE_TAG else None)
                continue
            count = len(node.children)
            children = [child for child in values[-count:] if child is not None]
            del values[-count:]
            values.append(Tree(node.label, children) if children else None)
        return values[0] if values[0] is not None else self

    def to_spans(self) -> List[LabelledSpan]:
        """Labelled spans ``(start, end, labels)`` of the normalized tree, in pre-order.

        A unary chain is one span labelled outermost first (("S", "VP")); preterminals are not
        spans; the root is. A tree that is a single preterminal gives [].
        """
        spans: List[list] = []
        # Items are (node, span of the unary parent the node extends, or None); (None, span) marks
        # the exit from span, where its end is known.
        stack: List[Tuple[Optional[Tree], Optional[list]]] = [(self.normalize(), None)]
        position = 0
        while stack:
            node, chain = stack.pop()
            if node is None:
                chain[1] = position  # type: ignore[index]
            elif node.word is not None:
                position += 1
            else:
                if chain is None:
                    chain = [position, None, [node.label]]
                    spans.append(chain)
                    stack.append((None, chain))
                else:
                    chain[2].append(node.label)
                if len(node.children) == 1 and node.children[0].word is None:
                    stack.append((node.children[0], chain))
                else:
                    stack.extend((child, None) for child in reversed(node.children))
        return [(start, end, tuple(labels)) for start, end, labels in spans]

    @classmethod
    def from_spans(
        cls,
        words: Sequence[str],
        tags: Sequence[str],
        spans: Iterable[Tuple[int, int, Sequence[str]]],
        root_label: str = "S",
    ) -> Tree:
        """Build the tree whose :meth:`to_spans` are ``spans`` (inverse of :meth:`to_spans`).

        Spans may come in any order but must nest; label tuples expand back into unary chains. If
        no span covers all words, a root labelled ``root_label`` is added.
        """
        if len(words) != len(tags):
            raise ValueError(f"{len(words)} words but {len(tags)} tags")
        leaves = [Tree(tag, word=word) for word, tag in zip(words, tags)]
        root: Optional[Tree] = None
        stack: List[Tuple[Tree, int]] = []  # (innermost node of an open span's chain, span end)
        position = 0
        for start, end, labels in check_spans(len(words), spans, root_label):
            while stack and stack[-1][1] <= start:
                node, stop = stack.pop()
                node.children.extend(leaves[position:stop])
                position = stop
            if stack:
                stack[-1][0].children.extend(leaves[position:start])
            position = start
            # Children are filled in later, so the chain is built without the constructor's check.
            chain = [_open_node(label) for label in labels]
            for outer, inner in zip(chain, chain[1:]):
                outer.children.append(inner)
            if stack:
                stack[-1][0].children.append(chain[0])
            else:
                root = chain[0]
            stack.append((chain[-1], end))
        while stack:
            node, stop = stack.pop()
            node.children.extend(leaves[position:stop])
            position = stop
        assert root is not None  # check_spans guarantees a root span
        return root


def check_spans(
    n: int, spans: Iterable[Tuple[int, int, Sequence[str]]], root_label: str = "S"
) -> List[LabelledSpan]:
    """Validate labelled spans over ``n`` words; return them in pre-order with a root span.

    Offsets may be any integers (numpy's included); labels a non-empty sequence of non-empty
    strings without whitespace or brackets. Spans must lie within 0..n, nest, and be distinct.
    A root (0, n) labelled ``root_label`` is added if missing. Raises ValueError.
    """
    if n < 1:
        raise ValueError("a tree needs at least one word")
    checked = []
    for span in spans:
        try:
            start, end, labels = span
            start, end = operator.index(start), operator.index(end)
        except (TypeError, ValueError):
            raise ValueError(f"expected a span (start, end, labels), got {span!r}") from None
        if not 0 <= start < end <= n:
            raise ValueError(f"span {span!r} is not within 0..{n} or is empty")
        if isinstance(labels, str) or not labels:
            raise ValueError(f"span {span!r}: labels must be a non-empty tuple of strings")
        for label in labels:
            if not isinstance(label, str) or not label or _BAD_LABEL_RE.search(label):
                raise ValueError(f"span {span!r}: bad label {label!r}")
        checked.append((start, end, tuple(labels)))
    checked.sort(key=lambda span: (span[0], -span[1]))
    if not checked or checked[0][:2] != (0, n):
        checked.insert(0, (0, n, (root_label,)))
    ends: List[int] = []  # ends of the spans enclosing the current one
    previous = None
    for start, end, _ in checked:
        if (start, end) == previous:
            raise ValueError(f"span ({start}, {end}) given twice; put a unary chain in one label tuple")
        previous = (start, end)
        while ends and ends[-1] <= start:
            ends.pop()
        if ends and end > ends[-1]:
            raise ValueError(f"span ({start}, {end}) crosses an enclosing span ending at {ends[-1]}")
        ends.append(end)
    return checked


def parse_brackets(text: str, source: str = "<string>", *, tagged: bool = True) -> Iterator[Tuple[int, Tree]]:
    """The bracketed trees of ``text``, one after another, each with the position of its first
    bracket in ``text``; ``source`` names the text in errors. Trees may span lines and may be
    wrapped in an empty-label bracket "( (S ...) )"; words are unescaped.

    With ``tagged=True`` (the default) a word is the only child of its preterminal "(NN dog)".
    With ``tagged=False`` every word is a bare child of its phrase, "(NP John Smith)", and gets
    the placeholder tag :data:`UNTAGGED`; "(NP John)" is then NP over (XX John).

    Raises TreeFormatError, naming ``source`` and the 1-based line, on malformed input. Files are
    read by :func:`spacy_lal.corpora.ptb.read_trees`.
    """
    return _parse_located(text, source, tagged)


# -- internals -------------------------------------------------------------------------------


def _parse(text: str, source: str, tagged: bool, single: bool = False) -> Iterator[Tree]:
    """Tokenize and parse bracketed trees with an explicit stack (no recursion)."""
    for _, tree in _parse_located(text, source, tagged, single):
        yield tree


def _parse_located(text: str, source: str, tagged: bool, single: bool = False) -> Iterator[Tuple[int, Tree]]:
    """:func:`_parse`, each tree with the position of its first bracket in ``text``."""

    def error(position: int, expected: str, found: str) -> TreeFormatError:
        return TreeFormatError(source, _line_of(text, position), expected, found)

    stack: List[list] = []  # open brackets: [label, children, position of the "("]
    done = False
    for match in _TOKEN_RE.finditer(text):
        kind = match.lastindex
        position = match.start()
        if done:
            raise error(position, "end of input after the tree", repr(match.group()))
        if kind == _PRETERMINAL:
            tag, word = match.group(1, 2)
            start = position  # a tree that is one preterminal starts at its own bracket
            leaf = Tree(tag, word=unescape_word(word))
            node = leaf if tagged else Tree(tag, [Tree(UNTAGGED, word=leaf.word)])
        elif kind == _OPEN:
            stack.append([match.group(3), [], position])
            continue
        elif kind == _WORD:
            if not stack:
                raise error(position, "'('", repr(match.group()))
            if tagged:
                raise error(
                    position,
                    "'(' (a word must be the only child of its preterminal, as in (NN dog); "
                    "read untagged trees with tagged=False)",
                    repr(match.group()),
                )
            stack[-1][1].append(Tree(UNTAGGED, word=unescape_word(match.group())))
            continue
        elif match.group() == "(":
            if stack:
                following = text[match.end() :].lstrip()[:1]
                raise error(
                    position,
                    "a label after '(' (only the outermost bracket may be unlabelled)",
                    repr(following) if following else "end of input",
                )
            stack.append(["", [], position])
            continue
        else:  # ")"
            if not stack:
                raise error(position, "'(' (unbalanced brackets)", "')'")
            label, children, start = stack.pop()
            if not children:
                expected = f"a word or '(' after '({label}'" if label else "a label after '('"
                raise error(position, expected, "')'")
            node = Tree(label, children)
        if stack:
            stack[-1][1].append(node)
        else:
            done = single
            yield start, node
    if stack:
        raise error(len(text), f"')' to close the '(' of line {_line_of(text, stack[-1][2])}", "end of input")


def _line_of(text: str, position: int) -> int:
    return text.count("\n", 0, position) + 1


def _check_writable(text: str, what: str, forbidden: re.Pattern[str]) -> None:
    if not text or forbidden.search(text):
        raise ValueError(f"cannot write {what} {text!r} in PTB brackets")


def _open_node(label: str) -> Tree:
    node = Tree.__new__(Tree)
    node.label, node.children, node.word = label, [], None
    return node


def _preorder(root: Tree) -> Iterator[Tree]:
    stack = [root]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(reversed(node.children))


def _postorder(root: Tree) -> List[Tree]:
    # Pre-order with children pushed left to right visits right to left; reversed, that is
    # left-to-right post-order.
    order = []
    stack = [root]
    while stack:
        node = stack.pop()
        order.append(node)
        stack.extend(node.children)
    order.reverse()
    return order


def _signature(root: Tree) -> Iterator[Tuple[str, Optional[str], int]]:
    for node in _preorder(root):
        yield node.label, node.word, len(node.children)
