"""The SDK as a third party gets it: install to a prefix, build each of sdk/examples/ as its
own CMake project with find_package(ZenSDK), drop the .so into a plugin dir, and the installed
zen-engine loads and runs it: hello_device (a device), mean_pooled_encoder (an encoder
architecture, checked against transformers' own outputs on the committed tiny BERT) and
patch_image_encoder (an image encoder feeding a decoder, checked against numpy)."""
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


def write_patch_projector(path, rng):
    """A tiny random image encoder in the example's GGUF layout (8 x 8 RGB, 4 x 4 patches, a
    16-wide tower, a 24-wide projector) and its weights, as the reference reads them."""
    import gguf  # the test tooling's GGUF writer (pip gguf)

    s, p, c, nv, d = 8, 4, 3, 16, 24
    n = (s // p) ** 2
    w = {"v.patch_embd.weight": rng.standard_normal((nv, c, p, p)) * 0.2,  # torch Conv2d layout
         "v.patch_embd.bias": rng.standard_normal(nv) * 0.1,
         "v.position_embd.weight": rng.standard_normal((n, nv)) * 0.1,
         "mm.0.weight": rng.standard_normal((d, nv)) * 0.2,  # torch Linear layout (out, in)
         "mm.0.bias": rng.standard_normal(d) * 0.1,
         "mm.2.weight": rng.standard_normal((d, d)) * 0.2,
         "mm.2.bias": rng.standard_normal(d) * 0.1}
    w = {k: v.astype(np.float32) for k, v in w.items()}
    writer = gguf.GGUFWriter(str(path), "patch_projector")
    for key, value in (("image_size", s), ("patch_size", p), ("embedding_length", nv),
                       ("projection_dim", d)):
        writer.add_uint32(f"patch_projector.{key}", value)
    for name, value in w.items():
        writer.add_tensor(name, value)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return s, p, w


def patch_projector_reference(image, patch, w):
    """The encoder in numpy, float64: Conv2d(stride = kernel = patch) over the [C, H, W] image,
    patches in row-major order, plus position embeddings, then Linear, GELU (erf), Linear."""
    import math

    grid = image.shape[1] // patch
    rows = []
    for y in range(grid):
        for x in range(grid):
            cut = image[:, y * patch:(y + 1) * patch, x * patch:(x + 1) * patch].astype(np.float64)
            rows.append((w["v.patch_embd.weight"] * cut).sum(axis=(1, 2, 3)) + w["v.patch_embd.bias"])
    v = np.array(rows) + w["v.position_embd.weight"]
    h = v @ w["mm.0.weight"].T.astype(np.float64) + w["mm.0.bias"]
    h = 0.5 * h * (1 + np.vectorize(math.erf)(h / math.sqrt(2)))
    return h @ w["mm.2.weight"].T.astype(np.float64) + w["mm.2.bias"]


def test_image_encoder_example_matches_numpy(source_dir, prefix, tmp_path):
    """The media-encoder kind (ABI 1.5) through a third-party plugin: an image in, the rows a
    decoder reads at its positions out, on every device of this machine."""
    plugin_dir = build_example(source_dir, prefix, tmp_path, "patch_image_encoder",
                               "zen-patch-image-encoder.so")
    rng = np.random.default_rng(7)
    size, patch, weights = write_patch_projector(tmp_path / "patch.gguf", rng)
    image = rng.random((3, size, size)).astype(np.float32)  # [C, H, W]: ne [W, H, C]
    image.tofile(tmp_path / "pixels.f32")
    want = patch_projector_reference(image, patch, weights)

    engine = str(prefix / "bin/zen-engine")
    env = clean_env(ZEN_PLUGIN_PATH=str(plugin_dir))
    cmd = [engine, "embed", "-m", str(tmp_path / "patch.gguf"), "--media",
           str(tmp_path / "pixels.f32"), "--media-shape", f"{size},{size},3", "--json"]
    out = run_json(cmd + ["--dump", "patches"], env=env)
    assert out["n_embd"] == want.shape[1] and len(out["rows"]) == want.shape[0]
    compare("cpu rows", out["rows"], want)
    assert out["tensors"]["patches"]["ne"][:2] == [16, want.shape[0]]

    devices = {d["id"] for d in run_json([engine, "probe", "--json"], env=env)["devices"]}
    for device in ("vulkan:0", "opencl:0"):
        if device not in devices:
            print(f"{device}: not on this machine, skipped")
            continue
        compare(f"{device} rows", run_json(cmd + ["--device", device], env=env)["rows"], want)

    # The wrong image size is refused by the plugin, naming the size it takes; a text command
    # refuses the image encoder.
    image[:, :4, :4].copy().tofile(tmp_path / "small.f32")
    small = [engine, "embed", "-m", str(tmp_path / "patch.gguf"), "--media",
             str(tmp_path / "small.f32"), "--media-shape", "4,4,3"]
    bad = run(small, env=env, check=False)
    assert bad.returncode != 0 and "must be 8 x 8 x 3" in bad.stderr, bad.stderr
    bad = run(cmd[:-3] + ["--media-shape", f"{size},{size},3,2"], env=env, check=False)
    assert bad.returncode != 0 and "values do not fill the shape" in bad.stderr, bad.stderr
    bad = run([engine, "bench", "-m", str(tmp_path / "patch.gguf"), "-p", "8", "-n", "0", "-r",
               "1"], env=env, check=False)
    assert bad.returncode != 0 and "is an image/audio encoder" in bad.stderr, bad.stderr
