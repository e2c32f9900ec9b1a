"""Count the FLOPs of one forward pass of each network of SD 1.5, SDXL and FLUX.1-dev at several resolutions.

Reproduces the `flops_per_pass` points of src/suanli/data/catalog/models-diffusion.yaml (source id
`measured-diffusion-flops`). Builds every network on the `meta` device (no weights, no download) from the
values of the pipelines' published config.json files
and runs one forward pass at batch 1 under torch.utils.flop_counter.FlopCounterMode, with scaled-dot-product
attention forced to the math backend so that attention is counted as its two batched matmuls.

FlopCounterMode counts 2 FLOPs per multiply-accumulate of matmuls, convolutions and attention; normalizations,
activations and other elementwise work are not counted (the usual convention of published FLOPs/MACs tables).

Not a test: needs `diffusers` and `pillow` (not suanli dependencies). Run:
    pip install --target /tmp/difflib diffusers pillow
    PYTHONPATH=/tmp/difflib .venv/bin/python scripts/measure_diffusion_flops.py            # FLOPs
    PYTHONPATH=/tmp/difflib .venv/bin/python scripts/measure_diffusion_flops.py --params   # parameter counts
Output (diffusers 0.42.1, transformers 5.24.0, torch 2.13.0): one line per network and square resolution,
`<network> <side px> <FLOPs>`. Pass conditions: UNets get 77 text tokens; the FLUX transformer gets 512 T5
tokens (the FLUX.1-dev pipeline's max_sequence_length default); text encoders run once per prompt; the VAE
counts `decode` only (the text-to-image pipelines never encode).
"""

# each lambda below is called at once, inside its own loop iteration
# ruff: noqa: B023
from __future__ import annotations

import sys

import torch
from diffusers import AutoencoderKL, FluxTransformer2DModel, UNet2DConditionModel
from torch.nn.attention import SDPBackend, sdpa_kernel
from torch.utils.flop_counter import FlopCounterMode
from transformers import CLIPTextConfig, CLIPTextModel, CLIPTextModelWithProjection, T5Config, T5EncoderModel

RESOLUTIONS = (256, 512, 768, 1024, 1536)
DT = torch.bfloat16


def count(fn: object) -> int:
    with sdpa_kernel(SDPBackend.MATH), FlopCounterMode(display=False) as fc, torch.no_grad():
        fn()  # type: ignore[operator]
    return int(fc.get_total_flops())


def build_networks() -> dict[str, torch.nn.Module]:
    """Every network of the three pipelines, built on the `meta` device in bf16 (no weights, no download)."""
    with torch.device("meta"):
        u15 = UNet2DConditionModel(
            sample_size=64, in_channels=4, out_channels=4,
            down_block_types=("CrossAttnDownBlock2D",) * 3 + ("DownBlock2D",),
            up_block_types=("UpBlock2D",) + ("CrossAttnUpBlock2D",) * 3,
            block_out_channels=(320, 640, 1280, 1280), layers_per_block=2, cross_attention_dim=768,
            attention_head_dim=8,
        ).to(DT)
        uxl = UNet2DConditionModel(
            sample_size=128, in_channels=4, out_channels=4,
            down_block_types=("DownBlock2D", "CrossAttnDownBlock2D", "CrossAttnDownBlock2D"),
            up_block_types=("CrossAttnUpBlock2D", "CrossAttnUpBlock2D", "UpBlock2D"),
            block_out_channels=(320, 640, 1280), layers_per_block=2, cross_attention_dim=2048,
            attention_head_dim=(5, 10, 20), transformer_layers_per_block=(1, 2, 10), use_linear_projection=True,
            addition_embed_type="text_time", addition_time_embed_dim=256, projection_class_embeddings_input_dim=2816,
        ).to(DT)
        vae4 = AutoencoderKL(
            in_channels=3, out_channels=3, down_block_types=("DownEncoderBlock2D",) * 4,
            up_block_types=("UpDecoderBlock2D",) * 4, block_out_channels=(128, 256, 512, 512), layers_per_block=2,
            latent_channels=4, norm_num_groups=32,
        ).to(DT)
        vae16 = AutoencoderKL(
            in_channels=3, out_channels=3, down_block_types=("DownEncoderBlock2D",) * 4,
            up_block_types=("UpDecoderBlock2D",) * 4, block_out_channels=(128, 256, 512, 512), layers_per_block=2,
            latent_channels=16, norm_num_groups=32, use_quant_conv=False, use_post_quant_conv=False,
        ).to(DT)
        ft = FluxTransformer2DModel(
            patch_size=1, in_channels=64, num_layers=19, num_single_layers=38, attention_head_dim=128,
            num_attention_heads=24, joint_attention_dim=4096, pooled_projection_dim=768, guidance_embeds=True,
            axes_dims_rope=(16, 56, 56),
        ).to(DT)
        clipl = CLIPTextModel(CLIPTextConfig(
            vocab_size=49408, hidden_size=768, intermediate_size=3072, num_hidden_layers=12, num_attention_heads=12,
            max_position_embeddings=77, projection_dim=768,
        )).to(DT)
        bigg = CLIPTextModelWithProjection(CLIPTextConfig(
            vocab_size=49408, hidden_size=1280, intermediate_size=5120, num_hidden_layers=32, num_attention_heads=20,
            max_position_embeddings=77, projection_dim=1280, hidden_act="gelu",
        )).to(DT)
        t5 = T5EncoderModel(T5Config(
            vocab_size=32128, d_model=4096, d_kv=64, d_ff=10240, num_layers=24, num_heads=64,
            feed_forward_proj="gated-gelu", is_encoder_decoder=False,
        )).to(DT)

    return {"sd15-unet": u15, "sdxl-unet": uxl, "vae4": vae4, "vae16": vae16, "flux-transformer": ft,
            "clip-l": clipl, "clip-bigG+proj": bigg, "t5-xxl-encoder": t5}


def print_param_counts() -> None:
    """sum(p.numel()) of each network: the `measured-diffusion-param-counts` numbers of models-diffusion.yaml."""
    for name, net in build_networks().items():
        print(name, sum(p.numel() for p in net.parameters()))


def main() -> None:
    if "--params" in sys.argv[1:]:
        print_param_counts()
        return
    nets = build_networks()
    u15, uxl, vae4, vae16, ft = nets["sd15-unet"], nets["sdxl-unet"], nets["vae4"], nets["vae16"], nets["flux-transformer"]
    clipl, bigg, t5 = nets["clip-l"], nets["clip-bigG+proj"], nets["t5-xxl-encoder"]
    with torch.device("meta"):
        ids77 = torch.zeros(1, 77, dtype=torch.long)
        ids512 = torch.zeros(1, 512, dtype=torch.long)
        print("clip-l", 0, count(lambda: clipl(ids77)))
        print("clip-bigG", 0, count(lambda: bigg(ids77, output_hidden_states=True)))
        print("t5-xxl-512", 0, count(lambda: t5(ids512)))
        t = torch.ones(1, dtype=DT)
        for r in RESOLUTIONS:
            lat = r // 8
            print("sd15-unet", r, count(lambda: u15(
                torch.zeros(1, 4, lat, lat, dtype=DT), t, torch.zeros(1, 77, 768, dtype=DT))))
            print("sdxl-unet", r, count(lambda: uxl(
                torch.zeros(1, 4, lat, lat, dtype=DT), t, torch.zeros(1, 77, 2048, dtype=DT),
                added_cond_kwargs={"text_embeds": torch.zeros(1, 1280, dtype=DT),
                                   "time_ids": torch.zeros(1, 6, dtype=DT)})))
            print("vae4-decode", r, count(lambda: vae4.decode(torch.zeros(1, 4, lat, lat, dtype=DT))))
            print("vae16-decode", r, count(lambda: vae16.decode(torch.zeros(1, 16, lat, lat, dtype=DT))))
            n_img = (r // 16) ** 2  # 8x VAE, then 2x2 patches (FluxPipeline._pack_latents)
            print("flux-transformer", r, count(lambda: ft(
                hidden_states=torch.zeros(1, n_img, 64, dtype=DT),
                encoder_hidden_states=torch.zeros(1, 512, 4096, dtype=DT),
                pooled_projections=torch.zeros(1, 768, dtype=DT), timestep=t, guidance=t,
                img_ids=torch.zeros(n_img, 3, dtype=DT), txt_ids=torch.zeros(512, 3, dtype=DT))))
            sys.stdout.flush()


if __name__ == "__main__":
    main()
