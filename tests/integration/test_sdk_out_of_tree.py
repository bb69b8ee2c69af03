"""The SDK as a third party gets it: install to a prefix, build each of sdk/examples/ as its
own CMake project with find_package(ZenSDK), drop the .so into a plugin dir, and the installed
zen-engine loads and runs it: hello_device (a device) and mean_pooled_encoder (an encoder
architecture, checked against transformers' own outputs on the committed tiny BERT)."""
import json
import os
import shutil

import numpy as np
import pytest

from conftest import clean_env, run, run_json

# F32 weights, F32 compute: only float summation order separates us from transformers.
MAX_ABS_DIFF = 1e-5


@pytest.fixture(scope="module")
def prefix(build_dir, tmp_path_factory):
    prefix = tmp_path_factory.mktemp("sdk") / "prefix"
    run(["cmake", "--install", str(build_dir), "--prefix", str(prefix)])
    return prefix


def build_example(source_dir, prefix, tmp_path, name, library):
    """Builds sdk/examples/<name> against the installed SDK only; returns a plugin dir with
    its library in it."""
    example_build = tmp_path / f"{name}-build"
    gen = os.environ.get("ZEN_TEST_GENERATOR", "Unix Makefiles")
    run(["cmake", "-S", str(source_dir / "sdk/examples" / name), "-B", str(example_build),
         "-G", gen, f"-DCMAKE_PREFIX_PATH={prefix}", "-DCMAKE_BUILD_TYPE=Release"])
    run(["cmake", "--build", str(example_build), "-j2"])
    so = example_build / library
    assert so.exists()
    plugin_dir = tmp_path / f"{name}-plugins"
    plugin_dir.mkdir()
    shutil.copy(so, plugin_dir)
    return plugin_dir


def test_example_plugin_builds_out_of_tree_and_loads(source_dir, prefix, tmp_path):
    assert (prefix / "include/zen/abi.h").exists()
    config = list(prefix.glob("lib*/cmake/ZenSDK/ZenSDKConfig.cmake"))
    assert config, "ZenSDKConfig.cmake installed"
    plugin_dir = build_example(source_dir, prefix, tmp_path, "hello_device",
                               "zen-hello-device.so")
    engine = str(prefix / "bin/zen-engine")
    out = run_json([engine, "plugins", "--json"], env=clean_env(ZEN_PLUGIN_PATH=str(plugin_dir)))
    hello = [p for p in out["plugins"] if p["path"].endswith("zen-hello-device.so")]
    assert hello and hello[0]["state"] == "loaded", out
    assert hello[0]["plugin_name"] == "hello" and hello[0]["version"] == "1.0.0"
    # The installed host also found its own installed CPU plugin, relative to its binary.
    cpu = [p for p in out["plugins"] if p["state"] == "loaded" and p.get("plugin_name") == "cpu"]
    assert cpu and str(prefix) in cpu[0]["path"], out

    probe = run_json([engine, "probe", "--json"], env=clean_env(ZEN_PLUGIN_PATH=str(plugin_dir)))
    hello_dev = [d for d in probe["devices"] if d["id"] == "hello:0"]
    assert hello_dev and hello_dev[0]["name"] == "hello"


def compare(label, got, want):
    got, want = np.asarray(got, dtype=np.float64), np.asarray(want, dtype=np.float64)
    assert got.shape == want.shape, f"{label}: shape {got.shape}, expected {want.shape}"
    diff = np.abs(got - want).max()
    print(f"{label}: max |diff| {diff:.3g}")
    assert diff <= MAX_ABS_DIFF, f"{label}: max |diff| {diff}"


def test_encoder_example_matches_transformers(source_dir, prefix, tmp_path):
    plugin_dir = build_example(source_dir, prefix, tmp_path, "mean_pooled_encoder",
                               "zen-mean-pooled-encoder.so")
    data = source_dir / "tests/data/models/tiny_encoder"
    manifest = json.loads((data / "manifest.json").read_text())
    seqs = manifest["sequences"]
    n_embd = manifest["config"]["hidden_size"]
    engine = str(prefix / "bin/zen-engine")
    env = clean_env(ZEN_PLUGIN_PATH=str(plugin_dir))
    cmd = [engine, "embed", "-m", str(data / manifest["gguf"]), "--json"]
    ids = [arg for s in seqs for arg in ("--ids", ",".join(map(str, s["ids"])))]

    # All sequences packed into one graph; the named tensors of that graph are dumped.
    names = ["embd_norm"] + [f"l_out-{il}" for il in range(manifest["config"]["num_hidden_layers"])]
    out = run_json(cmd + ids + [arg for n in names for arg in ("--dump", n)], env=env)
    assert out["n_embd"] == n_embd
    for i, s in enumerate(seqs):
        compare(f"sequence {i} mean-pooled", out["embeddings"][i], s["mean_pooled"])
    n_tokens = sum(len(s["ids"]) for s in seqs)
    for name in names:
        t = out["tensors"][name]
        assert t["ne"][:2] == [n_embd, n_tokens], t["ne"]
        want = np.concatenate([np.asarray(s["hidden_states"][name]) for s in seqs])
        compare(name, np.asarray(t["data"]).reshape(n_tokens, n_embd), want)

    # One sequence per graph (a batch too small for two) gives the same vectors, and
    # --normalize scales them to unit length.
    alone = run_json(cmd + ids + ["--batch-size", "16", "--normalize"], env=env)
    for i, s in enumerate(seqs):
        want = np.asarray(s["mean_pooled"])
        compare(f"sequence {i} alone, normalized", alone["embeddings"][i],
                want / np.linalg.norm(want))

    # The GPU devices (lavapipe and PoCL here) run the same graph to the same tolerance.
    devices = {d["id"] for d in run_json([engine, "probe", "--json"], env=env)["devices"]}
    for device in ("vulkan:0", "opencl:0"):
        if device not in devices:
            print(f"{device}: not on this machine, skipped")
            continue
        on = run_json(cmd + ids + ["--device", device], env=env)
        for i, s in enumerate(seqs):
            compare(f"{device} sequence {i}", on["embeddings"][i], s["mean_pooled"])

    # A decoder-only command refuses the encoder, and embed refuses a sequence that cannot fit.
    bad = run([engine, "bench", "-m", str(data / manifest["gguf"]), "-p", "8", "-n", "0", "-r", "1"],
              env=env, check=False)
    assert bad.returncode != 0 and "is an encoder" in bad.stderr, bad.stderr
    too_long = ",".join(["1"] * (manifest["config"]["max_position_embeddings"] + 1))
    bad = run(cmd + ["--ids", too_long], env=env, check=False)
    assert bad.returncode != 0 and "fit the model's context" in bad.stderr, bad.stderr
