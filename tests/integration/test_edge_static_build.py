"""A minimal edge build: only the CPU plugin, linked into the binary (no dlopen)."""
import os

from conftest import clean_env, run, run_json


def test_static_cpu_only_build(source_dir, build_dir):
    edge = build_dir / "edge-static"
    gen = os.environ.get("ZEN_TEST_GENERATOR", "Unix Makefiles")
    run(["cmake", "-S", str(source_dir), "-B", str(edge), "-G", gen, "-DZEN_PLUGINS=cpu",
         "-DZEN_STATIC_PLUGINS=ON", "-DZEN_BUILD_TESTS=OFF", "-DCMAKE_BUILD_TYPE=Release"],
        timeout=600)
    run(["cmake", "--build", str(edge), "--target", "zen-engine", "-j2"], timeout=1500)
    engine = str(edge / "bin/zen-engine")
    plugin_dir = edge / "lib/zen/plugins"
    assert not list(plugin_dir.glob("*.so")) if plugin_dir.exists() else True, "no .so built"

    out = run_json([engine, "plugins", "--json"])
    loaded = [p for p in out["plugins"] if p["state"] == "loaded"]
    assert len(loaded) == 1 and loaded[0]["plugin_name"] == "cpu", out
    assert loaded[0]["path"].startswith("static:cpu-"), loaded[0]
    statics = [p for p in out["plugins"] if p["path"].startswith("static:")]
    assert len(statics) >= 1 and all(p["reason"] for p in statics if p["state"] != "loaded")

    probe = run_json([engine, "probe", "--json"])
    assert [d["id"] for d in probe["devices"] if d["chosen"]] == ["cpu:0"]
    ldd = run(["ldd", engine]).stdout
    assert "zen-cpu" not in ldd
