"""Shared ask words alone are no match, and contradicting cases of one dimension are no match."""

from monitor.golden.text import Vocabulary, contradicts


def test_ask_words_are_no_topic() -> None:
    vocab = Vocabulary.load()
    seat, change = vocab.tokens("Chọn chỗ ngồi mất phí bao nhiêu?"), vocab.tokens("Đổi vé mất phí bao nhiêu")
    assert not vocab.topic(seat) & vocab.topic(change)
    refund = vocab.tokens("phí hoàn vé bao nhiêu")
    assert vocab.topic(refund) & vocab.topic(vocab.tokens("hoàn vé quốc tế mất phí bao nhiêu"))


def test_contrasting_cases_contradict() -> None:
    vocab = Vocabulary.load()
    online, counter = (
        vocab.cases(vocab.tokens("làm thủ tục trên app")),
        vocab.cases(vocab.tokens("quầy thủ tục")),
    )
    assert contradicts(online, counter)
    assert not contradicts(online, vocab.cases(vocab.tokens("làm thủ tục")))  # silence is no contradiction
    assert not contradicts(
        vocab.cases(vocab.tokens("国际航班")), vocab.cases(vocab.tokens("international flight"))
    )
