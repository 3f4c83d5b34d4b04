"""How hybrid search weighs its two rankings (retrieval.search)."""

from retrieval.search import CROSS_LANGUAGE_LEXICAL_WEIGHT, LEXICAL_WEIGHT, fusion_weights, language_of


def dense_weight(query: str, business_languages: tuple[str, ...], model_languages) -> float:
    return fusion_weights(language_of(query, business_languages), business_languages, model_languages)[0]


def test_dense_ranking_steps_aside_for_a_language_the_model_was_not_trained_on():
    english_only = ("en",)
    assert dense_weight("¿Cuánto cuesta la habitación doble?", ("es",), english_only) == 0.0
    assert dense_weight("How much is the double room?", ("es",), english_only) == 1.0
    assert dense_weight("habitación doble", ("es",), english_only) == 1.0  # no function words: keep both
    assert dense_weight("¿Cuánto cuesta la habitación doble?", ("es",), None) == 1.0  # a multilingual model
    # Pages without `lang`: only English is a candidate, so the query stays hybrid.
    assert dense_weight("¿Cuánto cuesta la habitación doble?", ("",), english_only) == 1.0


def test_lexical_steps_mostly_aside_for_a_question_in_a_language_the_site_lacks():
    # A multilingual model reads the Spanish pages; BM25 cannot match English words to them.
    assert fusion_weights("en", ("es",), None) == (1.0, CROSS_LANGUAGE_LEXICAL_WEIGHT)
    assert fusion_weights("es", ("es",), None) == (1.0, LEXICAL_WEIGHT)
    assert fusion_weights(None, ("es",), None) == (1.0, LEXICAL_WEIGHT)
    # An English-only model cannot read them either: BM25 keeps its whole weight.
    assert fusion_weights("en", ("es",), ("en",)) == (1.0, 1.0)
    assert language_of("영업시간이 어떻게 되나요?", ("en",)) == "ko"
