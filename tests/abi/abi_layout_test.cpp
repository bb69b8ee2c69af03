// The ABI's struct layouts are pinned for LP64 (x86_64, aarch64): a change here breaks every
// plugin built before it, so it must be a deliberate ABI major bump, never an accident. The C
// translation unit (c_layout.c) checks a C compiler lays the structs out like C++ does.
#include <cstddef>

#include <gtest/gtest.h>
#include <zen/abi.h>
#include <zen/arch.h>
#include <zen/device.h>
#include <zen/frontend.h>
#include <zen/graph.h>
#include <zen/quant.h>

extern "C" size_t zen_c_layout(int which);

static_assert(sizeof(void*) == 8, "layouts below are pinned for LP64");
static_assert(sizeof(zen_hdr) == 8);
static_assert(offsetof(zen_hdr, abi_major) == 4);
static_assert(offsetof(zen_hdr, abi_minor) == 6);
static_assert(sizeof(zen_host_api) == 48);
static_assert(offsetof(zen_host_api, get_api) == 8);
static_assert(offsetof(zen_host_api, log) == 16);
static_assert(offsetof(zen_host_api, config_get) == 24);
static_assert(offsetof(zen_host_api, alloc) == 32);
static_assert(offsetof(zen_host_api, free) == 40);
static_assert(sizeof(zen_plugin_desc) == 48);
static_assert(offsetof(zen_plugin_desc, kind) == 8);
static_assert(offsetof(zen_plugin_desc, name) == 16);
static_assert(offsetof(zen_plugin_desc, version) == 24);
static_assert(offsetof(zen_plugin_desc, variant) == 32);
static_assert(offsetof(zen_plugin_desc, vtable) == 40);
static_assert(sizeof(zen_tensor) == 208);
static_assert(offsetof(zen_tensor, ne) == 8);
static_assert(offsetof(zen_tensor, nb) == 40);
static_assert(offsetof(zen_tensor, src) == 72);
static_assert(offsetof(zen_tensor, params) == 96);
static_assert(offsetof(zen_tensor, flags) == 160);
static_assert(offsetof(zen_tensor, view_src) == 164);
static_assert(offsetof(zen_tensor, view_offset) == 168);
static_assert(offsetof(zen_tensor, buffer) == 176);
static_assert(offsetof(zen_tensor, offset) == 184);
static_assert(offsetof(zen_tensor, data) == 192);
static_assert(offsetof(zen_tensor, name) == 200);
static_assert(sizeof(zen_graph) == 40);
static_assert(offsetof(zen_graph, tensor_stride) == 8);
static_assert(offsetof(zen_graph, n_tensors) == 12);
static_assert(offsetof(zen_graph, tensors) == 16);
static_assert(offsetof(zen_graph, n_nodes) == 24);
static_assert(offsetof(zen_graph, nodes) == 32);
static_assert(sizeof(zen_graph_api) == 88);
static_assert(offsetof(zen_graph_api, input) == 8);
static_assert(offsetof(zen_graph_api, last_error) == 56);
static_assert(offsetof(zen_graph_api, strides) == 64);
static_assert(offsetof(zen_graph_api, state) == 72);
static_assert(offsetof(zen_graph_api, name) == 80);  // ABI 1.4
static_assert(sizeof(zen_device_props) == 408);
static_assert(offsetof(zen_device_props, name) == 8);
static_assert(offsetof(zen_device_props, description) == 72);
static_assert(offsetof(zen_device_props, type) == 328);
static_assert(offsetof(zen_device_props, memory_total) == 336);
static_assert(offsetof(zen_device_props, priority) == 352);
static_assert(offsetof(zen_device_props, pci_bus_id) == 364);
static_assert(offsetof(zen_device_props, vendor_id) == 396);
static_assert(offsetof(zen_device_props, device_id) == 400);
static_assert(sizeof(zen_device_v1) == 128);
static_assert(offsetof(zen_device_v1, device_count) == 8);
static_assert(offsetof(zen_device_v1, synchronize) == 96);
static_assert(offsetof(zen_device_v1, buffer_wrap_host) == 104);
static_assert(offsetof(zen_device_v1, get_proc) == 120);
static_assert(sizeof(zen_quant_type) == 56);
static_assert(offsetof(zen_quant_type, to_float) == 40);
static_assert(offsetof(zen_quant_type, from_float) == 48);
static_assert(sizeof(zen_quant_v1) == 24);
static_assert(sizeof(zen_hparam_desc) == 32);
static_assert(sizeof(zen_model_api) == 64);
static_assert(offsetof(zen_model_api, get_array_f32) == 48);
static_assert(sizeof(zen_batch) == 96);
static_assert(offsetof(zen_batch, kv_size) == 48);
static_assert(offsetof(zen_batch, n_outputs) == 56);
static_assert(offsetof(zen_batch, gather_kv) == 60);  // ABI 1.2
static_assert(offsetof(zen_batch, n_seqs) == 64);     // ABI 1.4
static_assert(offsetof(zen_batch, n_given) == 68);    // ABI 1.5
static_assert(offsetof(zen_batch, media_ne) == 72);   // ABI 1.5
static_assert(offsetof(zen_batch, stage) == 88);      // ABI 1.5
static_assert(sizeof(zen_arch_v1) == 104);
static_assert(offsetof(zen_arch_v1, hf) == 88);           // ABI 1.6
static_assert(offsetof(zen_arch_v1, loaded_kind) == 96);  // ABI 1.8
static_assert(sizeof(zen_hf_key) == 32);
static_assert(sizeof(zen_hf_tensor) == 24);
static_assert(sizeof(zen_hf_map) == 40);
static_assert(offsetof(zen_hf_map, tensors) == 24);
static_assert(offsetof(zen_arch_v1, pipeline_tasks) == 76);  // ABI 1.5
static_assert(offsetof(zen_arch_v1, run) == 80);             // ABI 1.5
static_assert(offsetof(zen_arch_v1, model_kind) == 72);      // ABI 1.4
static_assert(offsetof(zen_arch_v1, cache_rows) == 64);
static_assert(offsetof(zen_arch_v1, load) == 40);
static_assert(offsetof(zen_arch_v1, build_graph) == 56);
static_assert(sizeof(zen_engine_api) == 136);
static_assert(offsetof(zen_engine_api, free_string) == 64);
static_assert(offsetof(zen_engine_api, status) == 72);           // ABI 1.2
static_assert(offsetof(zen_engine_api, task_kinds) == 80);       // ABI 1.4
static_assert(offsetof(zen_engine_api, submit_embed) == 88);     // ABI 1.4
static_assert(offsetof(zen_engine_api, submit_generate) == 96);  // ABI 1.5
static_assert(offsetof(zen_engine_api, submit_speech) == 128);   // ABI 1.5
static_assert(sizeof(zen_generate_request) == 264);
static_assert(offsetof(zen_generate_request, sampling_given) == 240);  // ABI 1.6
static_assert(offsetof(zen_generate_request, has_lora) == 244);        // ABI 1.7
static_assert(offsetof(zen_generate_request, lora) == 248);            // ABI 1.7
static_assert(offsetof(zen_generate_request, n_lora) == 256);          // ABI 1.7
static_assert(sizeof(zen_lora_pick) == 32);
static_assert(offsetof(zen_generate_request, messages) == 40);
static_assert(offsetof(zen_generate_request, temperature) == 168);
static_assert(offsetof(zen_generate_request, top_logprobs) == 236);
static_assert(sizeof(zen_generate_event) == 128);
static_assert(offsetof(zen_generate_event, error) == 120);
static_assert(sizeof(zen_chat_message) == 88);  // array elements: frozen
static_assert(sizeof(zen_content_part) == 56);
static_assert(sizeof(zen_tool_call) == 48);
static_assert(sizeof(zen_tool) == 48);
static_assert(sizeof(zen_logprob_entry) == 40);
static_assert(sizeof(zen_tool_call_delta) == 56);
static_assert(sizeof(zen_tokenize_request) == 64);
static_assert(sizeof(zen_tokenize_result) == 48);
static_assert(sizeof(zen_embed_request) == 64);
static_assert(offsetof(zen_embed_request, normalize) == 28);
static_assert(offsetof(zen_embed_request, dimensions) == 32);   // ABI 1.8
static_assert(offsetof(zen_embed_request, prompt_name) == 40);  // ABI 1.8
static_assert(offsetof(zen_embed_request, truncate) == 56);     // ABI 1.8
static_assert(sizeof(zen_rerank_request) == 48);
static_assert(offsetof(zen_rerank_request, truncate) == 44);  // ABI 1.8
static_assert(sizeof(zen_embed_result) == 32);
static_assert(sizeof(zen_embed_input) == 32);
static_assert(sizeof(zen_task_error) == 48);
static_assert(offsetof(zen_task_error, code) == 32);  // ABI 1.5
static_assert(sizeof(zen_frontend_v1) == 32);
static_assert(offsetof(zen_frontend_v1, address) == 24);  // ABI 1.2

TEST(AbiLayout, CCompilerAgrees) {
  EXPECT_EQ(zen_c_layout(0), sizeof(zen_tensor));
  EXPECT_EQ(zen_c_layout(1), sizeof(zen_device_v1));
  EXPECT_EQ(zen_c_layout(2), sizeof(zen_device_props));
  EXPECT_EQ(zen_c_layout(3), sizeof(zen_plugin_desc));
  EXPECT_EQ(zen_c_layout(4), sizeof(zen_host_api));
  EXPECT_EQ(zen_c_layout(5), offsetof(zen_tensor, name));
  EXPECT_EQ(zen_c_layout(6), sizeof(zen_arch_v1));
  EXPECT_EQ(zen_c_layout(7), sizeof(zen_generate_request));
  EXPECT_EQ(zen_c_layout(8), sizeof(zen_generate_event));
  EXPECT_EQ(zen_c_layout(9), sizeof(zen_chat_message));
}

TEST(AbiLayout, HasMemberRespectsStructSize) {
  zen_device_v1 t{};
  t.h = ZEN_HDR_INIT(zen_device_v1);
  EXPECT_TRUE(ZEN_HAS_MEMBER(&t, zen_device_v1, get_proc));
  t.h.struct_size =
      offsetof(zen_device_v1, buffer_wrap_host);  // an ABI 1.0 table without optionals
  EXPECT_TRUE(ZEN_HAS_MEMBER(&t, zen_device_v1, synchronize));
  EXPECT_FALSE(ZEN_HAS_MEMBER(&t, zen_device_v1, buffer_wrap_host));
}
