/* The test harness's HTTP extender: a loopback HTTP/1.1 server, on a thread of its own, that
 * answers each POST /<verb> with a scenario's canned `extenderResponses` entry for that verb
 * (its status, Content-Type application/json and its body), and anything else with 404 (a verb
 * without an entry), 405 (another method) or 4xx/5xx (a request it will not read). Request
 * bodies are read and dropped; connections stay open across requests unless the client closes
 * them or asks to. Only 127.0.0.1 is bound. */
#ifndef TPH_CLI_EXT_SERVER_H
#define TPH_CLI_EXT_SERVER_H

#include <stdint.h>

#include "tephra/scenario.h"

typedef struct ext_server ext_server;

/* Copy answers[0..n) and start serving them on 127.0.0.1 at a port the kernel picks. Returns
 * TPH_OK, or a negative status with *out NULL and `err` saying why. */
int ext_server_start(const tph_extender_response *answers, uint32_t n, ext_server **out, char *err,
                     size_t cap);
uint16_t ext_server_port(const ext_server *s);
/* How many requests it has answered (any status). */
uint64_t ext_server_requests(const ext_server *s);
/* Stop the thread, close every connection and free the server. NULL is a no-op. */
void ext_server_stop(ext_server *s);

#endif
