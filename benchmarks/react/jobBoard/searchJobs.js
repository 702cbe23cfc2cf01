import { useState } from 'react';

export default function SearchJobs() {
  const [title, setTitle] = useState('');
  const [location, setLocation] = useState('');
  const [jobs, setJobs] = useState([]);
  const [error, setError] = useState('');

  const search = async (event) => {
    event.preventDefault();
    setError('');
    const query = new URLSearchParams({ title, location });
    try {
      const response = await fetch(`/api/jobs?${query}`);
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      setJobs(await response.json());
    } catch (err) {
      setJobs([]);
      setError('Job search failed');
    }
  };

  return (
    <form onSubmit={search}>
      <input placeholder="Job title" value={title} onChange={(e) => setTitle(e.target.value)} />
      <input placeholder="Location" value={location} onChange={(e) => setLocation(e.target.value)} />
      <button type="submit">Find jobs</button>
      {error && <p>{error}</p>}
      <ul>
        {jobs.map((job) => (
          <li key={job.id}>{`${job.title} at ${job.company}`}</li>
        ))}
      </ul>
    </form>
  );
}
