"""zen-engine plugins / probe and config handling, run as a user would."""
import json
import os
import platform
from pathlib import Path

from conftest import clean_env, run, run_json


def cpu_flags():
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("flags"):
            return set(line.split(":", 1)[1].split())
    return set()


def test_plugins_lists_the_cpu_variants(zen_engine):
    out = run_json([zen_engine, "plugins", "--json"])
    by_name = {p["name"]: p for p in out["plugins"]}
    loaded = [p for p in out["plugins"] if p["state"] == "loaded" and p["kind"] == "device"]
    # One CPU variant; the GPU-API devices load beside it where their plugins were built.
    cpus = [p for p in loaded if p["plugin_name"] == "cpu"]
    assert len(cpus) == 1, out
    assert {p["plugin_name"] for p in loaded} <= {"cpu", "vulkan", "opencl"}, out
    cpu = cpus[0]
    assert cpu["score"] > 0 and cpu["version"] and cpu["abi"].startswith("1.")
    assert Path(cpu["path"]).name == f"zen-cpu-{cpu['variant']}.so"
    if platform.machine() == "x86_64":
        assert {"cpu-x86-64-v2", "cpu-avx2", "cpu-avx512", "cpu-amx"} <= set(by_name), by_name
        for name, p in by_name.items():
            if p["state"] != "loaded":
                assert p["reason"], f"{name} not loaded without a reason"


def test_plugins_text_shows_reasons(zen_engine):
    text = run([zen_engine, "plugins"]).stdout
    assert "plugin dirs:" in text
    assert "loaded" in text and "cpu-" in text


def test_avx512_refusal_matches_cpuinfo(zen_engine):
    if platform.machine() != "x86_64":
        return
    p = {p["name"]: p for p in run_json([zen_engine, "plugins", "--json"])["plugins"]}
    if "avx512f" not in cpu_flags():
        assert p["cpu-avx512"]["state"] == "refused"
        assert "X86_64_V4: not reported by the CPU" in p["cpu-avx512"]["reason"], p["cpu-avx512"]


def test_probe_json_describes_machine_and_choice(zen_engine):
    out = run_json([zen_engine, "probe", "--json"])
    assert len(out["topology"]["pus"]) == os.cpu_count(), out["topology"]
    chosen = [d for d in out["devices"] if d["chosen"]]
    assert chosen and chosen[0]["id"] == "cpu:0", out["devices"]
    assert chosen[0]["type"] == "cpu" and chosen[0]["why"].startswith("chosen")
    assert out["cpu"]["arch"] == platform.machine()


def test_probe_text(zen_engine):
    text = run([zen_engine, "probe"]).stdout
    for section in ("== CPU", "== Topology", "== Device plugins", "== Devices"):
        assert section in text, text
    assert "* cpu:0" in text


def test_cpu_variant_override_by_env(zen_engine):
    out = run_json([zen_engine, "plugins", "--json"], env=clean_env(ZEN_CPU_VARIANT="x86-64-v2"))
    loaded = [p for p in out["plugins"] if p["state"] == "loaded" and p["kind"] == "device"]
    assert loaded[0]["variant"] == "x86-64-v2"
    assert "chosen by cpu.variant" in loaded[0]["reason"]


def test_cpu_variant_override_by_config(zen_engine, tmp_path):
    cfg = tmp_path / "c.json"
    cfg.write_text(json.dumps({"cpu": {"variant": "x86-64-v2", "threads": 1}}))
    out = run_json([zen_engine, "--config", str(cfg), "plugins", "--json"])
    devices = [p for p in out["plugins"] if p["state"] == "loaded" and p["kind"] == "device"]
    assert devices[0]["variant"] == "x86-64-v2"


def test_bad_config_key_is_an_error_naming_it(zen_engine, tmp_path):
    cfg = tmp_path / "bad.json"
    cfg.write_text(json.dumps({"cpu": {"treads": 2}}))
    proc = run([zen_engine, "--config", str(cfg), "probe"], check=False)
    assert proc.returncode == 1
    assert "'cpu.treads' is not a known key" in proc.stderr, proc.stderr


def test_config_from_env_and_unknown_device(zen_engine, tmp_path):
    cfg = tmp_path / "dev.json"
    cfg.write_text(json.dumps({"devices": ["vulkan:9", "cpu"]}))
    proc = run([zen_engine, "probe"], env=clean_env(ZEN_CONFIG=str(cfg)), check=False)
    assert proc.returncode == 1
    assert "devices[0]: 'vulkan:9' is not available here" in proc.stderr, proc.stderr


def test_plugin_path_env_adds_directories(zen_engine, tmp_path):
    (tmp_path / "zen-junk.so").write_bytes(b"\x7fELF not really")
    out = run_json([zen_engine, "plugins", "--json"], env=clean_env(ZEN_PLUGIN_PATH=str(tmp_path)))
    assert str(tmp_path) in out["search_dirs"]
    junk = [p for p in out["plugins"] if p["path"].endswith("zen-junk.so")]
    assert junk and junk[0]["state"] == "refused"
    assert "cannot load shared object" in junk[0]["reason"]
    assert any(p["state"] == "loaded" for p in out["plugins"]), "host carried on"


def test_unknown_command_and_help(zen_engine):
    proc = run([zen_engine, "frobnicate"], check=False)
    assert proc.returncode == 2 and "unknown command 'frobnicate'" in proc.stderr
    assert "plugins" in run([zen_engine, "--help"]).stdout
