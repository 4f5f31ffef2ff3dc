"""What the label-attention heads attend to and contribute (Mrini et al. 2020, sec. 4.5-4.6),
as data and as SVG plots.

    from spacy_lal.interpret import explain, plot_attention, plot_contributions

    doc = nlp("The cat sat on the mat.")
    for sent in explain(nlp, doc):                 # one SentenceExplanation per sentence
        sent.attention                             # (heads, words): eq. 1 of each head
        root = sent.spans[0]                       # the predicted constituents, pre-order
        sent.top_heads(root, 3)                    # [("head 4", 0.21), ...]
        svg = plot_attention(sent)                 # heat map, heads x words
        svg = plot_contributions(sent, root)       # bar chart, one bar per head

The values come from the parser's own forward pass: ``explain`` runs the component's
``predict`` (its tok2vec, listeners included, and its chunking) with forward hooks on the torch
modules, removed before it returns, so parsing itself computes nothing more.

Heads are named by number ("head 0", ...). The component gives the layer one head per span label,
as the paper does, but nothing ties head ``k`` to label ``k``: the heads are interchangeable when
initialised and no loss refers to a head's index, so which labels a head serves is learnt. Mrini
et al. read it off the contributions (sec. 4.5: "head 52 is unique to S spans");
:func:`top_heads_by_label` counts the same statistic over any number of sentences.
"""
from .explain import SentenceExplanation, SpanContribution, explain, top_heads_by_label
from .plots import BOUNDARY_NAMES, PLOT_OPTIONS, plot_attention, plot_contributions

__all__ = [
    "BOUNDARY_NAMES",
    "PLOT_OPTIONS",
    "SentenceExplanation",
    "SpanContribution",
    "explain",
    "plot_attention",
    "plot_contributions",
    "top_heads_by_label",
]
