// The "hardware" service table (zen/hardware.h): the topology detected once, on first use, and
// answered to every device plugin from then on.
#pragma once

#include <zen/hardware.h>

namespace zen::hw {

const zen_hardware_api* hardware_api();

}  // namespace zen::hw
