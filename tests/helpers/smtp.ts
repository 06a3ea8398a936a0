import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { eventually } from './eventually';

export interface TestSmtp {
  url: string;
  messages: ParsedMail[];
  /** Resolves with the next message to arrive (or one already waiting), however long that takes. */
  nextMessage(): Promise<ParsedMail>;
  /**
   * From now on the server keeps each message it receives (nextMessage() sees it) but holds back
   * its acceptance, so the sender is still waiting on the message, until the returned release().
   */
  holdAcceptance(): () => void;
  close(): Promise<void>;
}

/** A real SMTP server on a free local port; the service talks to it over TCP like to any other. */
export async function startTestSmtp(): Promise<TestSmtp> {
  const messages: ParsedMail[] = [];
  let taken = 0;
  let held: (() => void)[] | undefined;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, _session, done) {
      simpleParser(stream)
        .then((mail) => {
          messages.push(mail);
          if (held) held.push(() => done());
          else done();
        })
        .catch((err: Error) => done(err));
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}?starttls=off`,
    messages,
    holdAcceptance() {
      const waiting: (() => void)[] = [];
      held = waiting;
      return () => {
        if (held === waiting) held = undefined;
        waiting.splice(0).forEach((accept) => accept());
      };
    },
    nextMessage: () => eventually(async () => (messages.length > taken ? messages[taken++] : undefined), 'the next e-mail', { intervalMs: 10 }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
