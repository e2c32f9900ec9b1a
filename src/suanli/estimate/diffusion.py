"""Diffusion speed (issue 3, item 2): seconds per image of a text-to-image pipeline at a resolution and step count.

Per image: the text encoders once, `steps` denoiser passes (two per step, batched, with classifier-free guidance),
the VAE decoder once. Each network's FLOPs per pass come from the catalog (`flops_per_pass`, measured with
FlopCounterMode at several resolutions, see scripts/measure_diffusion_flops.py) and are interpolated in the
latent pixel count. Time of a denoising step is a roofline with a fitted kernel efficiency and a per-step overhead.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from suanli.catalog.schema import Accelerator, Catalog, DiffusionComponent, EfficiencyFactor, ModelArch
from suanli.errors import EstimateError
from suanli.estimate.efficiency import Efficiency, efficiency
from suanli.estimate.precision import weight_bytes_per_param
from suanli.estimate.speed import device_rates
from suanli.estimate.workload import Workload
from suanli.i18n import Message

__all__ = [
    "DiffusionSpeed",
    "component_flops",
    "denoiser",
    "denoiser_flops_per_step",
    "diffusion_settings",
    "diffusion_speed",
]


class DiffusionSpeed(BaseModel):
    model_config = ConfigDict(frozen=True)

    seconds_per_image: float  # wall time of one pipeline call divided by the images it makes
    images_per_s: float  # all images of the batch, all cards
    step_time_s: float  # one denoising step of the whole batch
    latency_s: float  # one pipeline call: text encoders + steps + VAE decode
    steps: int
    resolution: int
    cfg: bool
    denoiser_flops_per_step: float
    text_encoder_s: float
    denoise_s: float
    vae_decode_s: float
    step_bound: str
    efficiencies: list[Efficiency]


def _solve3(a: list[list[float]], b: list[float]) -> list[float]:
    """Gaussian elimination with partial pivoting for a 3×3 system."""
    m = [row[:] + [v] for row, v in zip(a, b, strict=True)]
    for c in range(3):
        p = max(range(c, 3), key=lambda r: abs(m[r][c]))
        m[c], m[p] = m[p], m[c]
        if m[c][c] == 0:
            raise EstimateError(Message("err.flops_per_pass_points_are_degenerate"))
        for r in range(c + 1, 3):
            f = m[r][c] / m[c][c]
            for k in range(c, 4):
                m[r][k] -= f * m[c][k]
    x = [0.0, 0.0, 0.0]
    for r in (2, 1, 0):
        x[r] = (m[r][3] - sum(m[r][k] * x[k] for k in range(r + 1, 3))) / m[r][r]
    return x


def component_flops(c: DiffusionComponent, resolution: int) -> float:
    """FLOPs of one batch-1 pass of `c` at a square `resolution`.

    Convolutions and projections grow with the pixel count N, self-attention with N² (cross-attention with
    N × text tokens, FLUX's joint attention with (N + 512)²), so every network here is c0 + c1·N + c2·N²: a
    least-squares fit through the measured points, which reproduces points left out of it within 1 %
    (tests/unit/estimate/test_diffusion.py). A single point at resolution 0 is a constant (text encoders)."""
    if c.flops_per_pass is None:
        raise EstimateError(Message("err.no_flops_per_pass_in_the", c_name=c.name))
    pts = c.flops_per_pass.value
    if len(pts) == 1:
        return pts[0].flops
    if len(pts) < 3:
        raise EstimateError(Message("err.flops_per_pass_needs_one_point", c_name=c.name))
    scale = 1024.0**2  # normalise pixel counts so that the normal equations stay well conditioned
    xs = [p.resolution**2 / scale for p in pts]
    ys = [p.flops for p in pts]
    s = [sum(x**k for x in xs) for k in range(5)]
    t = [sum(y * x**k for x, y in zip(xs, ys, strict=True)) for k in range(3)]
    c0, c1, c2 = _solve3([[s[0], s[1], s[2]], [s[1], s[2], s[3]], [s[2], s[3], s[4]]], t)
    n = resolution**2 / scale
    return max(c0 + c1 * n + c2 * n * n, 0.0)


def denoiser(m: ModelArch) -> DiffusionComponent:
    for c in m.components:
        if c.role in ("unet", "transformer"):
            return c
    raise EstimateError(Message("err.a_diffusion_model_needs_a_unet", m_id=m.id))


def diffusion_settings(m: ModelArch, w: Workload) -> tuple[int, int, bool]:
    """(steps, resolution, cfg): the workload's values, else the pipeline's defaults."""
    if m.kind != "diffusion":
        raise EstimateError(Message("err.is_a_model_diffusion_speed_needs", m_id=m.id, m_kind=m.kind))
    p = m.pipeline
    steps = w.steps if w.steps is not None else (p.steps.value if p else None)
    res = w.resolution if w.resolution is not None else (p.resolution.value if p else None)
    cfg = w.cfg if w.cfg is not None else (p.cfg.value if p else None)
    if steps is None or res is None or cfg is None:
        raise EstimateError(Message("err.no_pipeline_defaults_in_the_catalog", m_id=m.id))
    return steps, res, cfg


def denoiser_flops_per_step(m: ModelArch, resolution: int, cfg: bool, batch: int = 1) -> float:
    """Denoiser FLOPs of one step: one pass per image, two with classifier-free guidance (negative + positive
    prompt batched together: diffusers StableDiffusionPipeline, `do_classifier_free_guidance`)."""
    return component_flops(denoiser(m), resolution) * batch * (2 if cfg else 1)


def diffusion_speed(
    cat: Catalog, m: ModelArch, acc: Accelerator, w: Workload, overrides: tuple[EfficiencyFactor, ...] = (),
    roof: bool = False,
) -> DiffusionSpeed:
    """Seconds per image = (text encoders + steps × step + VAE decode) / batch on one card; `gpus` cards each run
    their own batch (data parallel), so images per second scale with the cards and latency does not. `roof`: every
    efficiency 1 and no step overhead, the fastest the pipeline can run on the device's peaks (validate.physics)."""
    steps, res, cfg = diffusion_settings(m, w)
    peak, bw, e_mm, e_bw = device_rates(cat, acc, w, overrides)
    e_unet = efficiency(cat, acc, "diffusion_unet", w.precision, w.engine, overrides)
    e_tr = efficiency(cat, acc, "diffusion_transformer", w.precision, w.engine, overrides)
    e_oh = efficiency(cat, acc, "diffusion_step_overhead_s", w.precision, w.engine, overrides)
    per_param = weight_bytes_per_param(w.precision)
    mm, bwe, unet, tr, overhead_s = (1.0, 1.0, 1.0, 1.0, 0.0) if roof else (
        e_mm.value, e_bw.value, e_unet.value, e_tr.value, e_oh.value)

    def seconds(c: DiffusionComponent, flops: float) -> tuple[float, float]:
        """(compute, memory) seconds of one pass: roofline over the dense peak and the weights read once."""
        k = unet if c.role in ("unet", "vae") else tr
        return flops / (peak * mm * k), c.params.value * per_param / (bw * bwe)

    den = denoiser(m)
    b = w.batch
    f_step = denoiser_flops_per_step(m, res, cfg, b)
    comp, mem = seconds(den, f_step)
    step_s = max(comp, mem) + overhead_s
    text_s = 0.0
    vae_s = 0.0
    for c in m.components:
        if c.role == "text-encoder":
            # diffusers encodes the negative prompt too when CFG is on (encode_prompt)
            text_s += max(seconds(c, component_flops(c, res) * b * (2 if cfg else 1)))
        elif c.role == "vae":
            vae_s += max(seconds(c, component_flops(c, res) * b))
    latency = text_s + steps * step_s + vae_s
    return DiffusionSpeed(
        seconds_per_image=latency / b,
        images_per_s=b * w.gpus / latency,
        step_time_s=step_s,
        latency_s=latency,
        steps=steps,
        resolution=res,
        cfg=cfg,
        denoiser_flops_per_step=f_step,
        text_encoder_s=text_s,
        denoise_s=steps * step_s,
        vae_decode_s=vae_s,
        step_bound="compute" if comp >= mem else "memory-bandwidth",
        efficiencies=[e_mm, e_unet if den.role == "unet" else e_tr, e_oh],
    )
