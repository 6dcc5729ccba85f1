package example.orders.boot4;

/** The order_close job's payload, written as {"orderId":1001,"reason":"unpaid"}. */
public record OrderClose(long orderId, String reason) {}
