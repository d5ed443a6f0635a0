#include "board/net_path.h"

#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "board/jsonval.h"
#include "board/nic.h"
#include "board/nic_entry.h"
#include "board/sysfs.h"
#include "io/udp_path.h"

/* Kinds whose parent carries their frames (a veth's "parent" is its peer, not below it). */
static bool stacked(const char *kind)
{
	return !strcmp(kind, "vlan") || !strcmp(kind, "macvlan") || !strcmp(kind, "ipvlan") ||
	       !strcmp(kind, "macsec");
}

size_t bp_net_path_chain(const struct bp_nic_links *links, const char *dev,
			 char chain[][IF_NAMESIZE], size_t max)
{
	const struct bp_nic_link *l = bp_nic_links_by_name(links, dev);
	size_t n = 1;

	bp_strlcpy(chain[0], dev, IF_NAMESIZE);
	while (l && n < max && stacked(l->kind) && l->parent && !l->parent_elsewhere) {
		l = bp_nic_links_by_index(links, l->parent);
		if (!l)
			break;
		bp_strlcpy(chain[n++], l->name, IF_NAMESIZE);
	}
	return n;
}

/* The first VLAN id on the chain, or -1 */
static int chain_vlan(const struct bp_nic_links *links, char chain[][IF_NAMESIZE], size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct bp_nic_link *l = bp_nic_links_by_name(links, chain[i]);

		if (l && l->vlan_id >= 0)
			return l->vlan_id;
	}
	return -1;
}

static const char *str(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s && *s ? s : NULL;
}

static bool is_virtual(const json_t *nic)
{
	const char *bus = str(nic, "bus");

	return !bus || !strcmp(bus, "virtual");
}

/* What carried the traffic, in a word: loopback, wifi, virtual (veth, bridge, tun), wired */
static const char *medium(const json_t *path)
{
	const json_t *nic = json_object_get(path, "nic");
	const char *dev = str(path, "device");

	if (dev && !strcmp(dev, "lo"))
		return "loopback";
	if (json_is_true(json_object_get(nic, "wireless")))
		return "wifi";
	return is_virtual(nic) ? "virtual" : "wired";
}

json_t *bp_net_path_collect(const struct bp_addr *peer)
{
	char dev[IF_NAMESIZE], chain[BP_NET_PATH_MAX][IF_NAMESIZE], peer_s[64], summary[160];
	struct bp_nic_links links = { 0 };
	struct bp_nic_info nic;
	json_t *path, *through;
	size_t n;
	int sock, vlan;

	if (bp_route_out_dev((const struct sockaddr *)&peer->ss, dev, sizeof(dev)) < 0)
		return NULL;
	bp_nic_links_read(&links);	/* empty when it fails: the path is then the device alone */
	n = bp_net_path_chain(&links, dev, chain, BP_NET_PATH_MAX);
	vlan = chain_vlan(&links, chain, n);
	through = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(through, json_string(chain[i]));
	if (getnameinfo((const struct sockaddr *)&peer->ss, peer->len, peer_s, sizeof(peer_s),
			NULL, 0, NI_NUMERICHOST))
		bp_strlcpy(peer_s, "?", sizeof(peer_s));
	path = json_pack("{s:s, s:s, s:o, s:o}", "peer", peer_s, "device", dev,
			 "through", through, "vlan_id",
			 vlan < 0 ? json_null() : json_integer(vlan));
	sock = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (path && bp_nic_read("/", chain[n - 1], &nic) == 0)
		bp_json_put(path, "nic", bp_nic_entry_json(&nic, sock, &links));
	else if (path)
		bp_json_put(path, "nic", json_null());
	if (path)
		bp_json_put(path, "medium", json_string(medium(path)));
	if (sock >= 0)
		close(sock);
	bp_nic_links_free(&links);
	if (path) {
		bp_net_path_summary(path, summary, sizeof(summary));
		bp_json_put(path, "summary", json_string(summary));
	}
	return path;
}


/* A radio's link in a few words: ", Wi-Fi 5GHz ch 36, -42 dBm, 866.7 Mb/s" (the TX rate) */
static void wifi_facts(const json_t *w, char *facts, size_t len)
{
	const json_t *ch = json_object_get(w, "channel"), *sig = json_object_get(w, "signal_dbm");
	const json_t *tx = json_object_get(w, "tx_bitrate_mbps");
	size_t used = strlen(facts);

	if (!json_is_object(w))
		return;
	used += (size_t)snprintf(facts + used, len - used, "%sWi-Fi", facts[0] ? ", " : "");
	if (used < len && str(w, "band"))
		used += (size_t)snprintf(facts + used, len - used, " %s", str(w, "band"));
	if (used < len && json_is_integer(ch))
		used += (size_t)snprintf(facts + used, len - used, " ch %lld",
					 (long long)json_integer_value(ch));
	if (used < len && json_is_integer(sig))
		used += (size_t)snprintf(facts + used, len - used, ", %lld dBm",
					 (long long)json_integer_value(sig));
	if (used < len && json_is_number(tx))
		snprintf(facts + used, len - used, ", %.1f Mb/s", json_number_value(tx));
}

void bp_net_path_summary(const json_t *path, char *buf, size_t len)
{
	const json_t *through = json_object_get(path, "through");
	const json_t *nic = json_object_get(path, "nic");
	const json_t *vlan = json_object_get(path, "vlan_id");
	const char *what = str(nic, "kind") ? str(nic, "kind") : str(nic, "driver");
	json_int_t speed = json_integer_value(json_object_get(nic, "speed_mbps"));
	const char *duplex = str(nic, "duplex"), *autoneg = str(nic, "autoneg");
	char facts[128] = "";
	size_t used = 0;
	size_t n = json_array_size(through);

	used += (size_t)snprintf(buf, len, "via %s", str(path, "device") ? str(path, "device") : "?");
	if (json_is_integer(vlan) && used < len)
		used += (size_t)snprintf(buf + used, len - used, " (VLAN %lld)",
					 (long long)json_integer_value(vlan));
	for (size_t i = 1; i < n && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, " on %s",
					 json_string_value(json_array_get(through, i)));
	/* the NIC's facts that bound a figure: what it is, and what it negotiated */
	if (what)
		snprintf(facts, sizeof(facts), "%s%s%s", what,
			 !is_virtual(nic) && str(nic, "bus") ? " " : "",
			 !is_virtual(nic) && str(nic, "bus") ? str(nic, "bus") : "");
	if (speed > 0)
		snprintf(facts + strlen(facts), sizeof(facts) - strlen(facts), "%s%lld Mb/s",
			 facts[0] ? ", " : "", (long long)speed);
	if (duplex && !strcmp(duplex, "half"))
		snprintf(facts + strlen(facts), sizeof(facts) - strlen(facts), " half duplex");
	if (!is_virtual(nic) && autoneg && !strcmp(autoneg, "off"))
		snprintf(facts + strlen(facts), sizeof(facts) - strlen(facts), "%sautoneg off",
			 facts[0] ? ", " : "");
	wifi_facts(json_object_get(nic, "wifi"), facts, sizeof(facts));
	if (facts[0] && used < len)
		snprintf(buf + used, len - used, " (%s)", facts);
}

static int warn(struct bp_result *r, const json_t *path, double bitrate)
{
	const json_t *nic = json_object_get(path, "nic");
	const json_t *vlan = json_object_get(path, "vlan_id");
	const char *name = str(nic, "name");
	const char *insert = str(json_object_get(nic, "features"), "tx-vlan-hw-insert");
	json_int_t speed = json_integer_value(json_object_get(nic, "speed_mbps"));
	int rc = 0;

	if (!path || !name)
		return 0;
	if (json_is_integer(vlan) && insert && strncmp(insert, "on", 2))
		rc = bp_result_add_warning(r, "vlan-no-hw-insert", "the traffic went through "
					   "VLAN %lld on %s, which does not insert VLAN tags "
					   "(tx-vlan-hw-insert %s): the kernel tags every frame in "
					   "software, and a driver that mishandles tagged frames shows "
					   "it in this figure; the kernel's messages say if it did",
					   (long long)json_integer_value(vlan), name, insert);
	if (!rc && !is_virtual(nic) && speed > 0 && bitrate > 0.9 * (double)speed * 1e6)
		rc = bp_result_add_warning(r, "link-speed", "%.0f Mbit/s is %.0f %% of %s's "
					   "negotiated %lld Mb/s: the link bounds this figure, not "
					   "the board", bitrate / 1e6,
					   bitrate / ((double)speed * 1e6) * 100, name,
					   (long long)speed);
	return rc;
}

/* The radio's link at the end beside the one at the start, for the warning wifi-link */
static void wifi_end(json_t *path)
{
	const json_t *nic = json_object_get(path, "nic");
	struct bp_nic_info info = { .wireless = true };

	if (!json_is_true(json_object_get(nic, "wireless")) || !str(nic, "name"))
		return;
	bp_strlcpy(info.name, str(nic, "name"), sizeof(info.name));
	json_object_set_new(path, "wifi_end", bp_nic_wifi_json(&info));
}

/* "TX 866.7 / RX 1201.0 Mbit/s, -42 dBm" of a link's JSON, "?" where unknown */
static void wifi_words(const json_t *w, char *buf, size_t len)
{
	const json_t *tx = json_object_get(w, "tx_bitrate_mbps"), *rx = json_object_get(w, "rx_bitrate_mbps");
	const json_t *sig = json_object_get(w, "signal_dbm");
	char t[16] = "?", x[16] = "?", s[16] = "?";

	if (json_is_number(tx))
		snprintf(t, sizeof(t), "%.1f", json_number_value(tx));
	if (json_is_number(rx))
		snprintf(x, sizeof(x), "%.1f", json_number_value(rx));
	if (json_is_integer(sig))
		snprintf(s, sizeof(s), "%lld", (long long)json_integer_value(sig));
	snprintf(buf, len, "TX %s / RX %s Mbit/s, %s dBm", t, x, s);
}

static int warn_wifi(struct bp_result *r, const json_t *path)
{
	const json_t *w0 = json_object_get(json_object_get(path, "nic"), "wifi");
	const json_t *w1 = json_object_get(path, "wifi_end");
	char start[64], end[64];

	if (!json_is_object(w0) && !json_is_object(w1))
		return 0;
	wifi_words(w0, start, sizeof(start));
	wifi_words(w1, end, sizeof(end));
	return bp_result_add_warning(r, "wifi-link", "the traffic went over Wi-Fi (SSID %s, %s): "
				     "the radio's rates and signal bound this figure, not the board; "
				     "at the start %s, at the end %s",
				     str(w0, "ssid") ? str(w0, "ssid") : "unknown",
				     str(w0, "band") ? str(w0, "band") : "band unknown", start, end);
}

int bp_net_path_attach(struct bp_result *r, json_t *path, double bitrate)
{
	int rc;

	if (!path)
		return 0;
	wifi_end(path);
	if (!r->env)
		bp_result_set_env(r, json_object());
	if (!r->env || json_object_set(r->env, "path", path))
		return -ENOMEM;
	rc = warn(r, path, bitrate);
	return rc ? rc : warn_wifi(r, path);
}

double bp_net_path_top_bitrate(const struct bp_result *r)
{
	static const char *const names[] = { "receiver.bitrate", "up.receiver.bitrate",
					     "down.receiver.bitrate" };
	double top = 0;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const struct bp_metric *m = bp_result_find_metric(r, names[i]);

		if (m && m->value > top)
			top = m->value;
	}
	return top;
}
