"""scripts/soft_targets.py: silver files rewritten with a teacher's soft arc targets, their parses
and user data kept; a file that is no DocBin named in the error."""
import json
import sys
from pathlib import Path

from spacy.tokens import Doc, DocBin

from spacy_lal.doc.extensions import soft_arc_targets

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
import soft_targets  # noqa: E402


def test_silver_shards_get_soft_targets(trained_parser, tmp_path, capsys):
    nlp, examples = trained_parser
    teacher = tmp_path / "teacher"
    nlp.to_disk(teacher)
    parsed = list(nlp.pipe(Doc(nlp.vocab, words=[t.text for t in eg.reference]) for eg in examples))
    for doc in parsed:
        doc.user_data["sent_id"] = doc.text
    silver = tmp_path / "silver" / "part"
    silver.mkdir(parents=True)
    DocBin(store_user_data=True, docs=parsed[:3]).to_disk(silver / "a-00000.spacy")
    DocBin(store_user_data=True, docs=parsed[3:]).to_disk(silver / "a-00001.spacy")
    out = tmp_path / "soft"
    assert soft_targets.main([str(tmp_path / "silver"), str(out), "--teacher", str(teacher), "--top-heads", "2"]) == 0
    docs = [doc for name in ("a-00000.spacy", "a-00001.spacy")
            for doc in DocBin().from_disk(out / "part" / name).get_docs(nlp.vocab)]
    assert [d.text for d in docs] == [d.text for d in parsed]
    for doc, before in zip(docs, parsed):
        assert [t.head.i for t in doc] == [t.head.i for t in before]
        assert doc._.trees[0].to_string() == before._.trees[0].to_string()
        assert doc.user_data["sent_id"] == before.text
        targets = soft_arc_targets(doc)
        assert sorted(targets) == list(range(len(doc)))
        assert all(1 <= len(heads) <= 2 for heads, _ in targets.values())
    card = json.loads((out / "card.json").read_text())
    assert card["documents"] == len(parsed) and card["top_heads"] == 2

    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "x.spacy").write_bytes(b"not a docbin")
    assert soft_targets.main([str(tmp_path / "bad"), str(tmp_path / "out2"), "--teacher", str(teacher)]) == 1
    assert "x.spacy: not a DocBin" in capsys.readouterr().err
