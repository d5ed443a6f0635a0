/*
 * The kernel's complaints into a result (board/kmsg.h): monitor.kernel_messages (null when
 * the log could not be read), monitor.kernel_messages_more (past the ones kept) and
 * kernel_messages_lost (overwritten before they were read), and the warning
 * `kernel-messages` quoting the first, those naming a device or driver on the test's path
 * (env.path, board/net_path.h) first.
 */
#ifndef BP_BOARD_KMSG_RESULT_H
#define BP_BOARD_KMSG_RESULT_H

#include "board/kmsg.h"
#include "result/result.h"

/* Lines the warning quotes; the rest are in JSON */
#define BP_KMSG_QUOTED 3

/* k NULL: the monitor did not read the log (nothing said). 0 or -ENOMEM. */
int bp_kmsg_to_result(const struct bp_kmsg *k, struct bp_result *r);

#endif
