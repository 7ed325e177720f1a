// Confs for benchmarks while actions and plugins are still landing: Volcano's default conf and
// any scenario's conf, rewritten without the names that are not built yet. The benchmark
// labels say what was dropped, so a figure is never quoted for a conf it did not run.
#include "bench.h"

#include <cstring>
#include <map>

namespace tb
{

static bool cached(std::map<std::string, bool> &m, const char *name, bool (*probe)(const char *))
{
	auto it = m.find(name);
	if (it == m.end())
		it = m.emplace(name, probe(name)).first;
	return it->second;
}

static bool plugin_ok(const char *name)
{
	static std::map<std::string, bool> m;
	return cached(m, name, plugin_built);
}

static bool action_ok(const char *name)
{
	static std::map<std::string, bool> m;
	return cached(m, name, action_built);
}

static void note(std::string *dropped, const char *name)
{
	if (!dropped)
		return;
	*dropped += dropped->empty() ? "" : ",";
	*dropped += name;
}

static std::string actions_line(const std::vector<const char *> &names, std::string *dropped)
{
	std::string line = "actions: \"";
	bool first = true;
	for (const char *a : names) {
		if (!action_ok(a)) {
			note(dropped, a);
			continue;
		}
		line += first ? "" : ", ";
		line += a;
		first = false;
	}
	return line + "\"\n";
}

std::string default_conf(std::string *dropped)
{
	static const char *const tiers[2][6] = {
	    {"priority", "gang", "conformance", nullptr},
	    {"overcommit", "drf", "predicates", "proportion", "nodeorder", "binpack"}};
	std::string text = actions_line({"enqueue", "allocate", "backfill"}, dropped) + "tiers:\n";
	for (const auto &tier : tiers) {
		std::string body;
		for (const char *p : tier) {
			if (!p)
				break;
			if (!plugin_ok(p)) {
				note(dropped, p);
				continue;
			}
			body += std::string("  - name: ") + p + "\n";
			if (!std::strcmp(p, "gang") || !std::strcmp(p, "drf"))
				body += "    enablePreemptable: false\n";
		}
		if (!body.empty())
			text += "- plugins:\n" + body;
	}
	return text;
}

static std::string plugin_entry(const tph_conf *conf, uint32_t t, uint32_t i)
{
	std::string e = std::string("  - name: ") + tph_conf_plugin_name(conf, t, i) + "\n";
	for (int f = 0; f < TPH_FLAG_COUNT; f++) {
		int raw = tph_conf_flag_raw(conf, t, i, tph_conf_flag(f));
		if (raw >= 0)
			e += std::string("    ") + tph_conf_flag_name(tph_conf_flag(f)) + ": " +
			     (raw ? "true" : "false") + "\n";
	}
	return e;
}

tph_conf *reduced_conf(const tph_conf *conf, std::string *dropped)
{
	std::vector<const char *> actions;
	for (uint32_t i = 0; i < tph_conf_action_count(conf); i++)
		actions.push_back(tph_conf_action(conf, i));
	std::string local, text = actions_line(actions, &local) + "tiers:\n";
	for (uint32_t t = 0; t < tph_conf_tier_count(conf); t++) {
		std::string body;
		for (uint32_t i = 0; i < tph_conf_plugin_count(conf, t); i++) {
			const char *name = tph_conf_plugin_name(conf, t, i);
			if (plugin_ok(name))
				body += plugin_entry(conf, t, i);
			else
				note(&local, name);
		}
		if (!body.empty())
			text += "- plugins:\n" + body;
	}
	if (dropped)
		*dropped = local;
	if (local.empty())
		return nullptr;
	tph_conf *out = nullptr;
	tph_diag d{};
	if (tph_conf_load_string(text.data(), text.size(), "reduced",
	                         tph_conf_enable_flags_default(conf), &out, &d))
		return conf_from(text); // reports and exits
	return out;
}

} // namespace tb
