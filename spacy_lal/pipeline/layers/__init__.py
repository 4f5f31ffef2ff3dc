"""Thinc layers the components share: embeddings and encoders, taggers, transformer features and
the int8 products (gemm.py)."""
