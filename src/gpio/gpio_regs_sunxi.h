/*
 * The Allwinner sunxi PIO (H3/H2+ and A20 user manuals, "Port Controller"): one block of
 * 0x24 bytes per port (PA = 0, PB = 1, ...), each
 *
 *   CFG0..3  +0x00..0x0c  4 bits per pin, 8 pins a word: 000 input, 001 output, 111 off
 *   DAT      +0x10        one bit per pin: reads the pin's level, writes the output latch
 *   DRV0/1   +0x14/0x18   drive strength, PUL0/1 +0x1c/0x20 pulls (never touched here)
 *
 * There are no set/clear registers, so driving one pin means reading DAT, changing one bit
 * and writing the word back (read-modify-write, as wiringOP does): two bus accesses instead
 * of one, and a pin of the same port changed by someone else between the read and the
 * write is put back to what was read.
 */
#ifndef BP_GPIO_GPIO_REGS_SUNXI_H
#define BP_GPIO_GPIO_REGS_SUNXI_H

#include <stdint.h>

#define BP_SUNXI_PORT_STRIDE 0x24u
#define BP_SUNXI_CFG0 0x00u
#define BP_SUNXI_DAT 0x10u
#define BP_SUNXI_FN_INPUT 0u
#define BP_SUNXI_FN_OUTPUT 1u

struct bp_gpio_sunxi_pin {
	volatile uint32_t *cfg; /* its CFGn word */
	volatile uint32_t *dat; /* its port's DAT */
	unsigned cfg_shift;     /* (pin % 8) * 4 */
	uint32_t mask;          /* 1 << pin */
};

/* regs: the mapped PIO (its first byte is PA_CFG0); port < 32, pin < 32. */
void bp_gpio_sunxi_pin_init(struct bp_gpio_sunxi_pin *p, volatile uint32_t *regs, unsigned port,
			    unsigned pin);

/* The pin's 4-bit function field (0 input, 1 output, 7 disabled, else a peripheral). */
unsigned bp_gpio_sunxi_function(const struct bp_gpio_sunxi_pin *p);

/* Sets the field, leaving the word's seven other pins as they were. */
void bp_gpio_sunxi_set_function(const struct bp_gpio_sunxi_pin *p, unsigned fn);

/* The hot path: read DAT, change the pin's bit, write DAT. */
static inline void bp_gpio_sunxi_write(const struct bp_gpio_sunxi_pin *p, int value)
{
	uint32_t v = *p->dat;

	*p->dat = value ? v | p->mask : v & ~p->mask;
}

/* The level from DAT (the register, not a remembered value). */
static inline int bp_gpio_sunxi_read(const struct bp_gpio_sunxi_pin *p)
{
	return (*p->dat & p->mask) != 0;
}

#endif
