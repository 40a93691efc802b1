"""Train the injection model (plugins/hermes_injection_model) on dev halves only, and write its weights.

    python benchmarks/train_injection_model.py [--real DIR1,DIR2,DIR3]   # the real-file caches, as bench_real_context

What it learns from (never a test half, never a held-out set):
* attacks: the dev half of every set in scan_sets.py and attack_sets.py (those read from a cache
  only when ``HERMES_PUBLIC_ATTACKS`` names one), ``scan_data/paraphrases_dev.jsonl`` (three rewordings
  of each dev-half attack of rounds one to six) and ``scan_data/training_written.jsonl`` (attacks of each
  family written from its description alone), all by people who had not read the rules;
* benign: every passage of the dev-half benign texts, the paraphrases' benign twins and variants, the
  written look-alikes, the dev halves of the three real-file samples (when their caches are given), the
  97 benign corpus files and the messages of the 17 corpus transcripts (weighted lower: ordinary text is easy).

Logistic regression with AdaGrad and a little L2, over hashed word uni- and bigrams (model.py). The
threshold comes from three seeded halvings of the dev items (an attack and its paraphrases always on
one side): the score that 1 % of the benign dev passages exceed when each is scored by a model trained
on the other half; the dev attacks scored the same way give the validation figure it prints. Features in
fewer than :data:`MIN_COUNT` training units are dropped. Deterministic: same data, same weights.
"""

from __future__ import annotations

import json
import math
import random
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "plugins"))

import attack_sets
import bench_real_context
import scan_sets
from bench_scan import CORPUS
from hermes_injection_model import model
from hermes_prompt.passages import split

from hermes_core.apps.transcripts import load_transcript
from hermes_core.text.messages import text_of

EPOCHS, RATE, L2, BENIGN_SHARE = 6, 0.5, 1e-6, 0.01
MIN_COUNT = 5  # a feature in fewer training units is dropped: rare n-grams overfit, and the file stays small
EASY_WEIGHT, REAL_WEIGHT = 0.2, 0.5
#: training-only texts: rewordings of dev-half items, and attacks with look-alikes written from the family descriptions
WRITTEN = ("paraphrases_dev.jsonl", "training_written.jsonl")
Example = tuple[tuple[list[int], float], int, float]  # ((features, 1/sqrt(n)), label, weight)


def _vector(text: str) -> tuple[list[int], float]:
    found = sorted(model.features(text))
    return found, 1 / math.sqrt(len(found) or 1)


def _real_dev_texts(dirs: list[str]) -> list[str]:
    manifests = (bench_real_context.MANIFEST, bench_real_context.SECOND_MANIFEST, bench_real_context.THIRD_MANIFEST)
    texts = []
    for manifest, directory in zip(manifests, dirs, strict=False):
        for row in bench_real_context.manifest(manifest):
            path = Path(directory) / bench_real_context.local_name(row)
            if bench_real_context.side_of(row, manifest) == "dev" and path.is_file():
                texts.append(path.read_text(encoding="utf-8", errors="replace"))
    return texts


def _corpus_texts() -> list[str]:
    """The benign corpus files and the text of every message of the corpus transcripts (first 20,000 chars)."""
    texts = [p.read_text(encoding="utf-8") for p in sorted((CORPUS / "benign").iterdir())]
    for path in sorted((CORPUS.parent / "transcripts").glob("*.json")):
        texts += [text[:20_000] for m in load_transcript(path).messages if (text := text_of(m.get("content"))).strip()]
    return texts


def labelled(real_dirs: list[str]) -> tuple[list[tuple[str, str, bool]], list[tuple[str, float]]]:
    """([(id, text, attack)] of the dev items, which cross-validation splits; [(text, weight)] of extra benign)."""
    items = [(i.id, i.text, i.attack) for i in scan_sets.all_items() + attack_sets.items()
             if scan_sets.side(i) == "dev"]
    for name in WRITTEN:
        for line in (scan_sets.DATA / name).read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            items.append((row["id"], row["text"], row["attack"]))
    extra = [(t, REAL_WEIGHT) for t in _real_dev_texts(real_dirs)] + [(t, EASY_WEIGHT) for t in _corpus_texts()]
    return items, extra


def examples(items: list[tuple[str, str, bool]]) -> list[Example]:
    """An attack is one example (its hostile part is somewhere in it); a benign text gives one per unit."""
    out: list[Example] = []
    for _id, text, attack in items:
        if attack:
            out.append((_vector(text), 1, 1.0))
        else:
            out.extend((_vector(unit), 0, 1.0) for _line, unit in model.units(text))
    return out


def extra_examples(extra: list[tuple[str, float]]) -> list[Example]:
    """The extra benign texts' units, each with its text's weight: the same in every fit, so built once."""
    return [(_vector(unit), 0, weight) for text, weight in extra for _line, unit in model.units(text)]


def common(data: list[Example]) -> list[Example]:
    """The examples with only the features that occur in at least MIN_COUNT of them; the scale stays that of all
    of a unit's features, as the model scores it (a dropped feature weighs 0 there)."""
    counts: dict[int, int] = {}
    for (found, _scale), _label, _weight in data:
        for f in found:
            counts[f] = counts.get(f, 0) + 1
    out = []
    for (found, scale), label, weight in data:
        out.append((([f for f in found if counts[f] >= MIN_COUNT], scale), label, weight))
    return out


def fit(data: list[Example], seed: int = 0) -> tuple[dict[int, float], float]:
    data = common(data)
    weights: dict[int, float] = {}
    squares: dict[int, float] = {}
    bias, bias_square = 0.0, 1e-8
    rng = random.Random(seed)
    order = list(range(len(data)))
    for _ in range(EPOCHS):
        rng.shuffle(order)
        for n in order:
            (found, scale), label, weight = data[n]
            z = bias + scale * sum(weights.get(f, 0.0) for f in found)
            gradient = (1 / (1 + math.exp(-max(-30.0, min(30.0, z)))) - label) * weight
            for f in found:
                w = weights.get(f, 0.0)
                g = gradient * scale + L2 * w
                squares[f] = squares.get(f, 1e-8) + g * g
                weights[f] = w - RATE * g / math.sqrt(squares[f])
            bias_square += gradient * gradient
            bias -= RATE * gradient / math.sqrt(bias_square)
    return weights, bias


def _original(item_id: str) -> str:
    """A paraphrase's fold is its original's: rewordings of one attack never sit on both sides."""
    head, _, tail = item_id.rpartition("-")
    return head if tail in ("p1", "p2", "p3", "b1", "v1", "v2") else item_id


def passage_scores(m: model.Model, text: str) -> list[float]:
    """Each passage's score, as the prompt builder withholds passages: the highest of the units that start in
    it (a finding is at its unit's first line), the model's bias for a passage no unit starts in."""
    starts = [(first, score) for first, _line, score in m.flagged(text)]
    return [max((s for first, s in starts if p.first <= first + 1 <= p.last), default=m.bias) for p in split(text)]


def threshold(items: list[tuple[str, str, bool]], extra: list[Example], folds: int = 3) -> float:
    """The score that BENIGN_SHARE of the benign dev passages exceed, each scored by a fold that did not train on
    it (the share the benchmarks count, to which the rules' findings add); the dev attacks and benign texts
    above it, scored the same way, are printed as the validation figures."""
    passages, texts, attacks = [], [], []
    for k in range(folds):
        fold = [i for i in items if scan_sets.half(_original(i[0]), f"fold-{k}") == "dev"]  # half, by a seeded hash
        chosen = {i[0] for i in fold}
        held = [i for i in items if i[0] not in chosen]
        weights, bias = fit(examples(fold) + extra, seed=k)
        m = model.Model(weights, bias, float("-inf"))  # every unit's score
        for _id, text, attack in held:
            if attack:
                attacks.append(max((s for _l, _u, s in m.flagged(text)), default=m.bias))
            else:
                scores = passage_scores(m, text)
                passages += scores
                texts.append(max(scores, default=m.bias))
        print(f"fold {k}: {len(fold)} training items, {len(held)} scored", file=sys.stderr)
    passages.sort()
    cut = passages[int((1 - BENIGN_SHARE) * len(passages))]
    print(f"validation (out of fold), at the score that {BENIGN_SHARE:.0%} of {len(passages)} benign dev passages "
          f"exceed: {sum(s > cut for s in attacks)}/{len(attacks)} dev attacks and {sum(s > cut for s in texts)}/"
          f"{len(texts)} benign dev texts above it", file=sys.stderr)
    return cut


def main(argv: list[str]) -> None:
    real_dirs = argv[argv.index("--real") + 1].split(",") if "--real" in argv else []
    items, extra = labelled(real_dirs)
    extra_units = extra_examples(extra)
    cut = threshold(items, extra_units)
    weights, bias = fit(examples(items) + extra_units)
    kept = weights
    about: dict[str, Any] = {
        "trained_on": {"dev_items": len(items), "attacks": sum(a for _i, _t, a in items),
                       "extra_benign_texts": len(extra),
                       "public_cache": attack_sets.available()},
        "buckets": model.BUCKETS, "min_count": MIN_COUNT, "benign_passage_share_at_threshold": BENIGN_SHARE,
    }
    model.save(kept, bias, cut, about)
    print(json.dumps({"threshold": cut, "bias": bias, "features": len(kept)}, indent=1))


if __name__ == "__main__":
    main(sys.argv)
