/* Compiled as C: the SDK headers must be valid C, and lay structs out as C++ does. */
#include <zen/abi.h>
#include <zen/arch.h>
#include <zen/device.h>
#include <zen/frontend.h>
#include <zen/graph.h>
#include <zen/quant.h>

size_t zen_c_layout(int which) {
  switch (which) {
    case 0:
      return sizeof(zen_tensor);
    case 1:
      return sizeof(zen_device_v1);
    case 2:
      return sizeof(zen_device_props);
    case 3:
      return sizeof(zen_plugin_desc);
    case 4:
      return sizeof(zen_host_api);
    case 5:
      return offsetof(zen_tensor, name);
    case 6:
      return sizeof(zen_arch_v1);
    case 7:
      return sizeof(zen_generate_request);
    case 8:
      return sizeof(zen_generate_event);
    case 9:
      return sizeof(zen_chat_message);
  }
  return 0;
}
