"""The per-position logits `zen-engine perplexity --logits-out FILE` saves, and the divergence
measures the fidelity suites compare them with."""
import struct
from pathlib import Path

import numpy as np


def read_logits(path):
    """(token ids [n_ctx], logits [n_ctx, n_vocab]) of the first chunk in a ZENLGT01 file."""
    data = Path(path).read_bytes()
    assert data[:8] == b"ZENLGT01", f"{path} is not a zen-engine logits file"
    n_vocab, n_ctx, _n_chunks = struct.unpack_from("<III", data, 8)
    off = 20
    tokens = np.frombuffer(data, dtype=np.int32, count=n_ctx, offset=off)
    off += 4 * n_ctx
    logits = np.frombuffer(data, dtype=np.float32, count=n_ctx * n_vocab, offset=off)
    return tokens, logits.reshape(n_ctx, n_vocab)


def log_softmax(x):
    x = x.astype(np.float64)
    m = x.max(axis=-1, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis=-1, keepdims=True))


def kl_per_position(reference, other):
    """KL(reference || other) at every position, from raw logits."""
    lp_ref, lp_other = log_softmax(reference), log_softmax(other)
    return (np.exp(lp_ref) * (lp_ref - lp_other)).sum(axis=-1)
