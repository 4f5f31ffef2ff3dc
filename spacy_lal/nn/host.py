"""Where a model's outputs leave its device: the decoders (``spacy_lal.decode``, Cython and NumPy)
read host arrays, so every score that a decoder or a Doc needs crosses here, once per batch."""
import numpy as np
import torch
from torch import Tensor

__all__ = ["to_host"]


def to_host(tensor: Tensor) -> np.ndarray:
    """``tensor`` as a NumPy array on the host, detached; floating point as float32 (the
    decoders' type, whatever precision the model ran in). A copy only where the tensor is on
    another device or in another precision."""
    tensor = tensor.detach()
    if tensor.is_floating_point() and tensor.dtype != torch.float32:
        tensor = tensor.float()
    return tensor.cpu().numpy()
