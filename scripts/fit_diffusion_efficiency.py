"""Refit the diffusion efficiency factors of src/suanli/data/catalog/diffusion.yaml (source `fit-diffusion-speed`).

Grid search over diffusion_unet, diffusion_transformer and diffusion_step_overhead_s that minimises the mean
|log(estimate / measured)| of the `diffusion-speed` cases (the mean, not the median, so that the six GeForce SD 1.5
cases cannot outvote the A100 and FLUX ones) in src/suanli/data/validation/published_diffusion.yaml.
Prints the best values and each case's error. Run: .venv/bin/python scripts/fit_diffusion_efficiency.py
"""

from __future__ import annotations

import math
import statistics

from suanli.catalog import lookup
from suanli.catalog.load import packaged_catalog
from suanli.catalog.schema import EfficiencyFactor
from suanli.estimate.estimate import estimate
from suanli.estimate.workload import make_workload
from suanli.validate.report import _WORKLOAD_KEYS, load_cases


def main() -> None:
    cat = packaged_catalog()
    cases = [c for c in load_cases() if c["group"] == "diffusion-speed"]
    prepared = []
    for c in cases:
        metric = next(iter(c["measured"]))
        w = make_workload(**{k: c[k] for k in _WORKLOAD_KEYS if k in c})
        prepared.append((c["id"], lookup.model(cat, c["model"]), lookup.accelerator(cat, c["device"]), w, metric,
                         float(c["measured"][metric])))

    def errors(ku: float, kt: float, oh: float) -> list[float]:
        ov = (
            EfficiencyFactor(id="fit-u", metric="diffusion_unet", value=ku, source="fit"),
            EfficiencyFactor(id="fit-t", metric="diffusion_transformer", value=kt, source="fit"),
            EfficiencyFactor(id="fit-o", metric="diffusion_step_overhead_s", value=oh, source="fit"),
        )
        out = []
        for _, m, acc, w, metric, measured in prepared:
            d = estimate(cat, m, acc, w, overrides=ov).diffusion
            assert d is not None
            out.append(getattr(d, metric) / measured - 1)
        return out

    best: tuple[float, float, float, float] | None = None
    for ku in [x / 100 for x in range(30, 91, 2)]:
        for kt in [x / 100 for x in range(30, 91, 2)]:
            for oh in [x / 1000 for x in range(0, 31, 1)]:
                loss = statistics.fmean(abs(math.log1p(e)) for e in errors(ku, kt, oh))
                if best is None or loss < best[0]:
                    best = (loss, ku, kt, oh)
    assert best is not None
    loss, ku, kt, oh = best
    a = sorted(abs(e) for e in errors(ku, kt, oh))
    print(f"diffusion_unet={ku} diffusion_transformer={kt} diffusion_step_overhead_s={oh} mean|log|={loss:.3f} "
          f"median={statistics.median(a):.3f} p90={a[round(0.9 * (len(a) - 1))]:.3f}")
    for (cid, *_), e in zip(prepared, errors(ku, kt, oh), strict=True):
        print(f"  {cid}: {100 * e:+.1f} %")


if __name__ == "__main__":
    main()
