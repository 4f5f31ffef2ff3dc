"""python scripts/frames_effect.py PIPELINE GOLD.spacy [OUT.json]: lal_srl with frames = "propbank" vs null on EWT test, gold words and gold predicates: the
pipeline runs once up to lal_srl, then lal_srl runs on copies of those Docs with each setting."""
import json, sys, time
import spacy
from spacy.tokens import DocBin
from spacy.training import Example
import spacy_lal
from spacy_lal.doc import propbank
from spacy_lal.evaluation import gold_inputs
from spacy_lal.pipeline.srl.predicate_marking import mark_predicates
from spacy_lal.pipeline.srl.scoring import make_srl_full_scorer

nlp = spacy.load(sys.argv[1])
srl = nlp.get_pipe("lal_srl")
print("loaded cfg frames =", srl.cfg.get("frames"), "decoder =", srl.cfg["decoder"], flush=True)
gold = list(DocBin().from_disk(sys.argv[2]).get_docs(nlp.vocab))
inputs = gold_inputs(nlp.vocab, gold)
for doc, ref in zip(inputs, gold):
    mark_predicates(doc, [f.predicate.i for f in ref._.srl])
t = time.time()
with nlp.select_pipes(disable=["lal_srl"]):
    before = list(nlp.pipe(inputs, batch_size=64))
print("pipeline up to lal_srl:", round(time.time() - t, 1), "s", flush=True)
srl.configure(predicates="gold")
score = make_srl_full_scorer()
out = {}
for setting in ("propbank", None):
    srl.configure(frames=setting)
    docs = [d.copy() for d in before]
    for d, b in zip(docs, before):
        d.user_data = dict(b.user_data)
    t = time.time()
    predicted = list(srl.pipe(docs, batch_size=64))
    seconds = time.time() - t
    frames = [f for d in predicted for f in d._.srl]
    s = score([Example(p, g) for p, g in zip(predicted, gold)])
    gold_senses = [f.sense for g in gold for f in g._.srl]
    out[str(setting)] = {
        "srl_f": round(100 * s["srl_f"], 2), "srl_p": round(100 * s["srl_p"], 2), "srl_r": round(100 * s["srl_r"], 2),
        "srl_sense_acc": round(100 * s["srl_sense_acc"], 2),
        "frames": len(frames),
        "senses_not_in_inventory": sum(1 for f in frames if f.sense is not None and propbank.roleset(f.sense) is None),
        "no_sense": sum(1 for f in frames if f.sense is None),
        "phrasal_senses": sum(1 for f in frames if f.sense and "_" in f.sense),
        "args_numbered_not_defined": sum(1 for f in frames if f.roleset for a in f.arguments if not f.roleset.defines(a.label_)),
        "lal_srl_seconds": round(seconds, 1),
    }
    print(setting, out[str(setting)], flush=True)
out["gold_senses_not_in_inventory"] = sum(1 for s in gold_senses if s and propbank.roleset(s) is None)
out["gold_frames"] = len(gold_senses)
print(json.dumps(out, indent=1))
if len(sys.argv) > 3:
    json.dump(out, open(sys.argv[3], "w"), indent=1)
