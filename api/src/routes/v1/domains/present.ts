import { type DomainRecord, zoneFileData } from "@mailroom/core/domains";
import { MailroomError } from "@mailroom/core/errors";

// The TTL suggested in the zone-file line: short enough that a correction propagates within the hour.
const ZONE_FILE_TTL = 3600;

export const notFound = (name: string) =>
  new MailroomError("not_found", `No domain ${name} in this account.`);

/** A domain as the API shows it (the schema keeps public key halves only): each record also as a zone-file line. */
export const presentDomain = (domain: DomainRecord) => ({
  ...domain,
  records: domain.records.map((record) => ({
    ...record,
    zoneFileLine: `${record.name}. ${ZONE_FILE_TTL} IN ${record.type} ${zoneFileData(record)}`,
  })),
});
