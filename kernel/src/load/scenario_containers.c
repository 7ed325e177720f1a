/* Scenario fields about containers beyond their summed requests: a pod's initContainers,
 * images and hostPorts, and a node's images (format additions for InitResreq, NodePorts and
 * ImageLocality; docs/format-additions.md). */
#include "scenario_ld.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

_Static_assert(sizeof(tph_port_protocol) == sizeof(int), "enum fields are written as int");

/* ---- images ---- */

static int f_image(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	(void)aux;
	int rc = yu_str(c, v, (const char **)dst);
	if (rc == TPH_OK && !**(const char **)dst)
		rc = yu_err(c, v, TPH_EINVAL, "empty image name");
	return rc;
}

/* A list of non-empty strings (image names). */
static int f_names(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	tph_str_list *l = dst;
	int rc = yu_str_list(c, v, l);
	for (uint32_t i = 0; rc == TPH_OK && i < l->n; i++) {
		if (l->items[i][0])
			continue;
		yu_push_idx(c, (int32_t)i);
		rc = yu_err(c, yu_at(c, v->u.items[i]), TPH_EINVAL, "empty image name");
		yu_pop(c);
	}
	if (rc == TPH_OK && aux && !l->n)
		rc = yu_err(c, v, TPH_EINVAL, "needs at least one name");
	return rc;
}

int sc_f_images(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	(void)aux;
	return f_names(c, v, dst, NULL);
}

static int f_size_bytes(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	(void)aux;
	return yu_int(c, v, 0, TPH_RES_VALUE_MAX, (int64_t *)dst);
}

static const yu_field node_image_fields[] = {
    YU_F("names", f_names, tph_node_image, names, "", YU_REQUIRED),
    YU_F("sizeBytes", f_size_bytes, tph_node_image, size_bytes, NULL, 0),
};

static int read_node_image(yu_ctx *c, yu_node *item, void *dst)
{
	return yu_walk(c, item, node_image_fields,
	               sizeof node_image_fields / sizeof node_image_fields[0], dst);
}

int sc_f_node_images(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	(void)aux;
	tph_node_desc *n = dst;
	void *items = NULL;
	int rc = sc_seq(c, v, sizeof(tph_node_image), &items, &n->n_images, read_node_image);
	n->images = items;
	return rc;
}

/* ---- init containers ---- */

static int f_restart_policy(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	(void)aux;
	static const char *const policies[] = {"Always", NULL}; /* the only one an init has */
	int which;
	int rc = yu_enum(c, v, policies, &which);
	*(bool *)dst = rc == TPH_OK;
	return rc;
}

static const yu_field init_fields[] = {
    YU_F("name", yu_f_name, tph_init_container, name, NULL, YU_REQUIRED),
    YU_F("image", f_image, tph_init_container, image, NULL, 0),
    YU_F("requests", yu_f_res, tph_init_container, requests, NULL, 0),
    YU_F("restartPolicy", f_restart_policy, tph_init_container, restart_always, NULL, 0),
};

static int read_init(yu_ctx *c, yu_node *item, void *dst)
{
	return yu_walk(c, item, init_fields, sizeof init_fields / sizeof init_fields[0], dst);
}

/* The item's `key` field, for messages about it. */
static yu_node *field_of(yu_ctx *c, const yu_node *seq, uint32_t i, const char *key)
{
	yu_push_idx(c, (int32_t)i);
	yu_push(c, key);
	return yu_map_find(c, yu_at(c, seq->u.items[i]), key);
}

int sc_f_init_containers(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	(void)aux;
	tph_pod_desc *p = dst;
	void *items = NULL;
	int rc = sc_seq(c, v, sizeof(tph_init_container), &items, &p->n_init_containers, read_init);
	p->init_containers = items;
	uint32_t at = UINT32_MAX;
	if (rc == TPH_OK && sc_find_repeat(items, p->n_init_containers, sizeof(tph_init_container),
	                                   offsetof(tph_init_container, name), &at) < 0)
		return yu_err(c, v, TPH_ENOMEM, "out of memory");
	if (at != UINT32_MAX) {
		rc = yu_err(c, field_of(c, v, at, "name"), TPH_EINVAL,
		            "init container %s is listed twice", p->init_containers[at].name);
		c->depth -= 2;
	}
	return rc;
}

/* ---- host ports ---- */

static const char *const protocols[] = {"TCP", "UDP", "SCTP", NULL};

static int f_host_port(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	(void)aux;
	return yu_i32(c, v, 1, 65535, (int32_t *)dst);
}

/* "" is every address, as when left out; anything else must be an IPv4 or IPv6 address. */
static int f_host_ip(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	(void)aux;
	const char **ip = dst;
	unsigned char buf[16];
	int rc = yu_str(c, v, ip);
	if (rc == TPH_OK && **ip && inet_pton(AF_INET, *ip, buf) != 1 &&
	    inet_pton(AF_INET6, *ip, buf) != 1)
		rc = yu_err(c, v, TPH_EINVAL, "not an IP address (\"%s\")", *ip);
	return rc;
}

static const yu_field port_fields[] = {
    YU_F("hostPort", f_host_port, tph_host_port, port, NULL, YU_REQUIRED),
    YU_F("protocol", yu_f_enum, tph_host_port, protocol, protocols, 0),
    YU_F("hostIP", f_host_ip, tph_host_port, host_ip, NULL, 0),
};

static int read_port(yu_ctx *c, yu_node *item, void *dst)
{
	return yu_walk(c, item, port_fields, sizeof port_fields / sizeof port_fields[0], dst);
}

/* "port/protocol/ip", the key no two host ports of a pod may share (the API server refuses
 * them; an empty hostIP is 0.0.0.0). */
static const char *port_key(yu_ctx *c, const tph_host_port *hp)
{
	const char *ip = hp->host_ip && hp->host_ip[0] ? hp->host_ip : "0.0.0.0";
	size_t n = strlen(ip) + 24;
	char *k = yu_alloc(c->arena, n);
	if (k)
		snprintf(k, n, "%d/%s/%s", (int)hp->port, protocols[hp->protocol], ip);
	return k;
}

int sc_f_host_ports(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	(void)aux;
	tph_pod_desc *p = dst;
	void *items = NULL;
	int rc = sc_seq(c, v, sizeof(tph_host_port), &items, &p->n_host_ports, read_port);
	p->host_ports = items;
	if (rc != TPH_OK || p->n_host_ports < 2)
		return rc;
	const char **keys = yu_alloc_array(c->arena, p->n_host_ports, sizeof *keys);
	uint32_t at = UINT32_MAX;
	for (uint32_t i = 0; keys && i < p->n_host_ports; i++)
		if (!(keys[i] = port_key(c, &p->host_ports[i])))
			keys = NULL;
	if (!keys || sc_find_repeat(keys, p->n_host_ports, sizeof *keys, 0, &at) < 0)
		return yu_err(c, v, TPH_ENOMEM, "out of memory");
	if (at != UINT32_MAX) {
		const tph_host_port *hp = &p->host_ports[at];
		rc = yu_err(c, field_of(c, v, at, "hostPort"), TPH_EINVAL,
		            "host port %d/%s is listed twice", (int)hp->port,
		            protocols[hp->protocol]);
		c->depth -= 2;
	}
	return rc;
}
