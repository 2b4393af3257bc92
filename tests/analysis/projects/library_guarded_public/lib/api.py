from ._kernels import _fused_scale


def normalize(x):
    # Public: the project's one call below runs under a CUDA check, a user's need not.
    return _fused_scale(x)
