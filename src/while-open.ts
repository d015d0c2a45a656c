/** A response body passed through chunk by chunk, telling its end (a gateway request's end is activity). */

/** `body` passed through chunk by chunk, calling `ended` once when it ends, fails or is cancelled. */
export function whileOpen(body: ReadableStream<Uint8Array> | null, ended: () => void): ReadableStream<Uint8Array> | null {
  if (!body) {
    ended();
    return null;
  }
  const reader = body.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) {
          ended();
          controller.close();
        } else controller.enqueue(value);
      } catch (e) {
        ended();
        controller.error(e);
      }
    },
    async cancel(reason) {
      ended();
      // The caller went away: the model server's answer is dropped, whatever its stream says of it.
      await reader.cancel(reason).catch(() => undefined);
    },
  });
}
