import type { Socket } from 'node:net';
import { DEFAULT_LINGER_MS, destroyAfter, endAndDestroy } from './close-socket.js';
import { responseInProgress } from './node-internals.js';
import { problem } from '../error-catalogue.js';
import type { HttpProblem } from '../http-problem.js';
import { answer, rawAnswer } from './raw-answer.js';

const answers = (refusal: HttpProblem) => ({ refusal, raw: rawAnswer(refusal) });
const HEADERS_TOO_LARGE = answers(problem('headers-too-large'));
const TIMED_OUT = answers(problem('request-timeout'));
const MALFORMED = answers(problem('not-http'));

const answerFor = (code: string | undefined) =>
  code === 'HPE_HEADER_OVERFLOW'
    ? HEADERS_TOO_LARGE
    : code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? TIMED_OUT
      : MALFORMED;

/**
 * A node:http 'clientError' listener: requests Node refuses before Koa sees them (unparsable,
 * headers over the limit, headers or body not received in time) get an Error body when nothing of
 * a response was sent yet, and every such connection is destroyed within `lingerMs`.
 */
export function clientErrorHandler(
  lingerMs = DEFAULT_LINGER_MS,
): (error: Error & { code?: string }, socket: Socket) => void {
  return (error, socket) => {
    const inFlight = responseInProgress(socket);
    if (error.code === 'ECONNRESET' || socket.destroyed || inFlight?.headersSent === true) {
      socket.destroy();
      return;
    }
    const { refusal, raw } = answerFor(error.code);
    if (inFlight === undefined) {
      endAndDestroy(socket, raw, lingerMs);
      return;
    }
    // A request whose body was still arriving: its response object answers, so the application's
    // own later attempt finds it already sent.
    answer(inFlight, refusal);
    destroyAfter(socket, lingerMs);
  };
}

/** The 'clientError' listener with the default linger, for servers embedding the application. */
export const answerClientError = clientErrorHandler();
