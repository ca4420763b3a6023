#include "core/cost/TopologyJson.h"

#include "core/cost/JsonFieldReader.h"
#include "core/domain/JsonFile.h"
#include "core/engine/EventJson.h"

namespace tessera::cost {

namespace {

template <class Enum, class Parse>
Enum readEnum(JsonFieldReader& r, std::string_view key, Parse parse, Enum fallback, std::string_view allowed) {
  const std::string text = r.string(key, std::string(toString(fallback)));
  const auto parsed = parse(text);
  if (!parsed) {
    r.fail(key, "unknown value '" + text + "' (expected one of " + std::string(allowed) + ")");
    return fallback;
  }
  return *parsed;
}

}  // namespace

std::variant<Topology, LoadError> topologyFromJson(const nlohmann::json& j) {
  JsonFieldReader r(j, "topology");
  Topology t;
  t.name = r.string("name");
  t.provider = r.string("provider", "");
  t.region = r.string("region");
  t.accelerator = readEnum(r, "accelerator", parseAccelerator, Accelerator::H100,
                           "A100, H100, H200, B200, GB200, MI300X, L40S, RTX4090");
  t.gpuMemoryGb = r.integer("gpu_memory_gb", 1, 4096, 80);
  t.gpusPerNode = r.integer("gpus_per_node", 1, 1024);

  JsonFieldReader intra = r.object("intra_node", true);
  t.intraNodeLink =
      readEnum(intra, "link", parseIntraNodeLink, IntraNodeLink::NVSwitch, "PCIe, NVLink, NVSwitch, InfinityFabric");
  t.intraNodeGBpsPerGpu = intra.number("gbytes_per_s_per_gpu", 0.001, 1e6);
  t.nodesPerNvlinkDomain = intra.integer("nodes_per_domain", 1, 100000, 1);
  r.absorb(intra);

  JsonFieldReader fab = r.object("fabric", true);
  t.fabric.fabricClass =
      readEnum(fab, "class", parseFabricClass, FabricClass::InfiniBand, "Ethernet, RoCE, InfiniBand");
  t.fabric.railsPerNode = fab.integer("rails_per_node", 1, 64);
  t.fabric.gbpsPerRail = fab.number("gbps_per_rail", 0.001, 1e5);
  t.fabric.nodesPerLeaf = fab.integer("nodes_per_leaf", 1, 100000);
  t.fabric.spinesPerSite = fab.integer("spines_per_site", 0, 10000, 1);
  t.fabric.oversubscription = fab.number("oversubscription", 1, 1000, 1.0);
  t.fabric.hopLatencyUs = fab.number("hop_latency_us", 0, 1e6, 1.0);
  r.absorb(fab);

  for (JsonFieldReader& s : r.objects("sites", true)) {
    Site site;
    site.name = s.string("name");
    site.nodes = s.integer("nodes", 1, 1000000);
    r.absorb(s);
    t.sites.push_back(site);
  }
  if (r.ok() && t.sites.empty()) r.fail("sites", "must list at least one site");

  JsonFieldReader link = r.object("inter_site", t.sites.size() > 1);
  t.interSite.gbps = link.number("gbps", 0.001, 1e7, t.sites.size() > 1 ? std::nullopt : std::optional(0.0));
  t.interSite.latencyMs = link.number("latency_ms", 0, 1e5, 0.0);
  r.absorb(link);

  JsonFieldReader storage = r.object("storage", false);
  t.storageGBps = storage.number("gbytes_per_s", 0.001, 1e7, 50.0);
  t.storageTb = storage.number("capacity_tb", 0, 1e9, 0.0);
  r.absorb(storage);

  JsonFieldReader rel = r.object("reliability", false);
  t.reliability.nodeFailuresPerYear = rel.number("node_failures_per_year", 0, 365, 0.10);
  t.reliability.inBurnIn = rel.boolean("in_burn_in", false);
  t.reliability.burnInFailureFraction = rel.number("burn_in_failure_fraction", 0, 1, 0.15);
  t.reliability.burnInDays = rel.integer("burn_in_days", 1, 3650, 30);
  r.absorb(rel);

  if (!r.ok()) return LoadError{r.error()};
  return t;
}

nlohmann::json toJson(const Topology& t) {
  nlohmann::json sites = nlohmann::json::array();
  for (const Site& s : t.sites) sites.push_back({{"name", s.name}, {"nodes", s.nodes}});
  nlohmann::json j = {
      {"name", t.name},
      {"provider", t.provider},
      {"region", t.region},
      {"accelerator", std::string(toString(t.accelerator))},
      {"gpu_memory_gb", t.gpuMemoryGb},
      {"gpus_per_node", t.gpusPerNode},
      {"intra_node",
       {{"link", std::string(toString(t.intraNodeLink))},
        {"gbytes_per_s_per_gpu", t.intraNodeGBpsPerGpu},
        {"nodes_per_domain", t.nodesPerNvlinkDomain}}},
      {"fabric",
       {{"class", std::string(toString(t.fabric.fabricClass))},
        {"rails_per_node", t.fabric.railsPerNode},
        {"gbps_per_rail", t.fabric.gbpsPerRail},
        {"nodes_per_leaf", t.fabric.nodesPerLeaf},
        {"spines_per_site", t.fabric.spinesPerSite},
        {"oversubscription", t.fabric.oversubscription},
        {"hop_latency_us", t.fabric.hopLatencyUs}}},
      {"sites", sites},
      {"storage", {{"gbytes_per_s", t.storageGBps}, {"capacity_tb", t.storageTb}}},
      {"reliability",
       {{"node_failures_per_year", t.reliability.nodeFailuresPerYear},
        {"in_burn_in", t.reliability.inBurnIn},
        {"burn_in_failure_fraction", t.reliability.burnInFailureFraction},
        {"burn_in_days", t.reliability.burnInDays}}},
  };
  if (t.sites.size() > 1) j["inter_site"] = {{"gbps", t.interSite.gbps}, {"latency_ms", t.interSite.latencyMs}};
  return j;
}

std::variant<Topology, LoadError> loadTopologyFile(const std::filesystem::path& file) {
  auto read = readJsonFile(file);
  if (auto* err = std::get_if<JsonFileError>(&read)) return LoadError{err->message};
  const nlohmann::json& j = std::get<nlohmann::json>(read);
  // A topology file always has "sites" and "intra_node"; anything else is tried as a cluster.
  if (j.is_object() && !j.contains("sites") && !j.contains("intra_node")) {
    auto cluster = clusterFromJson(j);
    if (auto* err = std::get_if<JsonError>(&cluster)) return LoadError{file.string() + ": cluster: " + err->message};
    return deriveTopology(std::get<Cluster>(cluster));
  }
  auto t = topologyFromJson(j);
  if (auto* err = std::get_if<LoadError>(&t)) return LoadError{file.string() + ": " + err->message};
  return t;
}

}  // namespace tessera::cost
