"""spacy-lal.Adam.v1: Thinc's Adam, with large arrays updated by torch's fused kernel."""
import numpy
import pytest
from spacy.util import registry
from thinc.api import Adam

from spacy_lal.training.optimizers import FUSED_MIN_SIZE, FusedAdam


def _settings(**overrides):
    settings = {"learn_rate": 0.001, "beta1": 0.9, "beta2": 0.98, "eps": 1e-8, "grad_clip": 1.0, "L2": 0.0,
                "L2_is_weight_decay": True, "use_averages": True}
    settings.update(overrides)
    return settings


@pytest.mark.parametrize("size", [FUSED_MIN_SIZE * 3, 50])
@pytest.mark.parametrize("overrides", [{}, {"L2": 0.01, "grad_clip": 0.0, "eps": 1e-4}])
def test_updates_equal_thincs_adam(size, overrides):
    """Ten updates of one array (fused when large, Thinc's loop when small): the same weights,
    moments and averages as Thinc's Adam, with learning-rate scales and a schedule."""
    rng = numpy.random.default_rng(0)
    start = rng.standard_normal((size // 10, 10)).astype("float32")
    schedule = [0.001 * (k + 1) for k in range(10)]
    ours = registry.resolve({"o": {"@optimizers": "spacy-lal.Adam.v1", **_settings(**overrides),
                                   "learn_rate": schedule}})["o"]
    assert isinstance(ours, FusedAdam)
    theirs = Adam(**{**_settings(**overrides), "learn_rate": schedule})
    weights = {"ours": start.copy(), "theirs": start.copy()}
    for step in range(10):
        gradient = rng.standard_normal(start.shape).astype("float32") * (0.01 if step % 2 else 1.0)
        for name, optimizer in (("ours", ours), ("theirs", theirs)):
            grad = gradient.copy()
            weights[name], grad = optimizer((1, "W"), weights[name], grad, lr_scale=0.5)
            assert not grad.any()  # the gradient is zeroed, as Thinc does
            optimizer.step_schedules()
    numpy.testing.assert_allclose(weights["ours"], weights["theirs"], rtol=1e-5, atol=1e-7)
    for moments in ("mom1", "mom2"):
        numpy.testing.assert_allclose(getattr(ours, moments)[(1, "W")], getattr(theirs, moments)[(1, "W")],
                                      rtol=1e-4, atol=1e-7)  # lerp rounds apart from mul-add
    numpy.testing.assert_allclose(ours.averages[(1, "W")], theirs.averages[(1, "W")], rtol=1e-5, atol=1e-7)
    assert not numpy.array_equal(weights["ours"], start)


def test_non_contiguous_arrays_stay_on_thincs_loop():
    """A view torch could not update in place is updated by Thinc's loop, as Thinc's Adam does."""
    rng = numpy.random.default_rng(1)
    base = rng.standard_normal((FUSED_MIN_SIZE, 4)).astype("float32")
    ours, theirs = FusedAdam(0.01), Adam(0.01)
    results = []
    for optimizer in (ours, theirs):
        weights = base.copy()[:, ::2]
        gradient = numpy.ones_like(weights)
        results.append(optimizer((2, "W"), weights, gradient)[0])
    numpy.testing.assert_allclose(results[0], results[1], rtol=1e-6)
