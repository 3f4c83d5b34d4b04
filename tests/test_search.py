"""How hybrid search weighs its two rankings (retrieval.search)."""

from retrieval.search import dense_weight


def test_dense_ranking_steps_aside_for_a_language_the_model_was_not_trained_on():
    english_only = ("en",)
    assert dense_weight("¿Cuánto cuesta la habitación doble?", ("es",), english_only) == 0.0
    assert dense_weight("How much is the double room?", ("es",), english_only) == 1.0
    assert dense_weight("habitación doble", ("es",), english_only) == 1.0  # no function words: keep both
    assert dense_weight("¿Cuánto cuesta la habitación doble?", ("es",), None) == 1.0  # a multilingual model
    # Pages without `lang`: only English is a candidate, so the query stays hybrid.
    assert dense_weight("¿Cuánto cuesta la habitación doble?", ("",), english_only) == 1.0
