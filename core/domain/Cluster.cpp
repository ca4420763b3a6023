#include "core/domain/Cluster.h"

#include <array>
#include <utility>

namespace tessera {
namespace {

template <typename E, std::size_t N>
std::optional<E> parseEnum(std::string_view s, const std::array<std::pair<E, std::string_view>, N>& table) {
  for (const auto& [value, name] : table)
    if (name == s) return value;
  return std::nullopt;
}

template <typename E, std::size_t N>
std::string_view nameOf(E e, const std::array<std::pair<E, std::string_view>, N>& table) {
  for (const auto& [value, name] : table)
    if (value == e) return name;
  return "?";
}

constexpr std::array<std::pair<Accelerator, std::string_view>, 8> kAccelerators{{
    {Accelerator::A100, "A100"},
    {Accelerator::H100, "H100"},
    {Accelerator::H200, "H200"},
    {Accelerator::B200, "B200"},
    {Accelerator::GB200, "GB200"},
    {Accelerator::MI300X, "MI300X"},
    {Accelerator::L40S, "L40S"},
    {Accelerator::RTX4090, "RTX4090"},
}};
constexpr std::array<std::pair<IntraNodeLink, std::string_view>, 4> kLinks{{
    {IntraNodeLink::PCIe, "PCIe"},
    {IntraNodeLink::NVLink, "NVLink"},
    {IntraNodeLink::NVSwitch, "NVSwitch"},
    {IntraNodeLink::InfinityFabric, "InfinityFabric"},
}};
constexpr std::array<std::pair<FabricClass, std::string_view>, 3> kFabrics{{
    {FabricClass::Ethernet, "Ethernet"},
    {FabricClass::RoCE, "RoCE"},
    {FabricClass::InfiniBand, "InfiniBand"},
}};

}  // namespace

std::string_view toString(Accelerator a) { return nameOf(a, kAccelerators); }
std::string_view toString(IntraNodeLink l) { return nameOf(l, kLinks); }
std::string_view toString(FabricClass f) { return nameOf(f, kFabrics); }
std::optional<Accelerator> parseAccelerator(std::string_view s) { return parseEnum(s, kAccelerators); }
std::optional<IntraNodeLink> parseIntraNodeLink(std::string_view s) { return parseEnum(s, kLinks); }
std::optional<FabricClass> parseFabricClass(std::string_view s) { return parseEnum(s, kFabrics); }

int standardGpuMemoryGb(Accelerator a) {
  switch (a) {
    case Accelerator::A100:
    case Accelerator::H100: return 80;
    case Accelerator::H200: return 141;
    case Accelerator::B200:
    case Accelerator::GB200:
    case Accelerator::MI300X: return 192;
    case Accelerator::L40S: return 48;
    case Accelerator::RTX4090: return 24;
  }
  return 80;
}

}  // namespace tessera
