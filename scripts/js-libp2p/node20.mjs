// Promise.withResolvers (ES2024), which the js-libp2p 3.x packages call
// and Node.js has from version 22 on, defined as the specification does
// for Node.js 20. Imported by peer.mjs before any libp2p module; on a
// Node.js that has it, it does nothing.
if (typeof Promise.withResolvers !== "function") {
  Object.defineProperty(Promise, "withResolvers", {
    configurable: true,
    writable: true,
    value: function withResolvers() {
      let resolve, reject;
      const promise = new this((res, rej) => {
        resolve = res;
        reject = rej;
      });
      return { promise, resolve, reject };
    },
  });
}
