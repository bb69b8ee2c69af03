"""The SDK as a third party gets it: install to a prefix, build sdk/examples/hello_device as
its own CMake project with find_package(ZenSDK), drop the .so into a plugin dir, and the
installed zen-engine loads it."""
import os
import shutil
import subprocess

from conftest import clean_env, run, run_json


def test_example_plugin_builds_out_of_tree_and_loads(source_dir, build_dir, tmp_path):
    prefix = tmp_path / "prefix"
    run(["cmake", "--install", str(build_dir), "--prefix", str(prefix)])
    assert (prefix / "include/zen/abi.h").exists()
    config = list(prefix.glob("lib*/cmake/ZenSDK/ZenSDKConfig.cmake"))
    assert config, "ZenSDKConfig.cmake installed"

    example_build = tmp_path / "example-build"
    gen = os.environ.get("ZEN_TEST_GENERATOR", "Unix Makefiles")
    run(["cmake", "-S", str(source_dir / "sdk/examples/hello_device"), "-B", str(example_build),
         "-G", gen, f"-DCMAKE_PREFIX_PATH={prefix}", "-DCMAKE_BUILD_TYPE=Release"])
    run(["cmake", "--build", str(example_build), "-j2"])
    so = example_build / "zen-hello-device.so"
    assert so.exists()

    plugin_dir = tmp_path / "plugins"
    plugin_dir.mkdir()
    shutil.copy(so, plugin_dir)
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
