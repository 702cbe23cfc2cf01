import { useEffect, useState } from 'react';

export default function SavedJobs() {
  const [jobs, setJobs] = useState([]);
  const [error, setError] = useState('');

  useEffect(() => {
    fetch('/api/saved-jobs')
      .then((response) => {
        if (!response.ok) throw new Error(`HTTP ${response.status}`);
        return response.json();
      })
      .then(setJobs)
      .catch(() => setError('Could not load saved jobs'));
  }, []);

  const remove = async (id) => {
    setError('');
    try {
      const response = await fetch(`/api/saved-jobs/${id}`, { method: 'DELETE' });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      setJobs((current) => current.filter((job) => job.id !== id));
    } catch (err) {
      setError('Could not remove job');
    }
  };

  return (
    <div>
      <h2>Saved jobs</h2>
      {error && <p>{error}</p>}
      <ul>
        {jobs.map((job) => (
          <li key={job.id}>
            <span>{job.title}</span> <small>{job.company}</small>
            <button data-testid={`remove-job-${job.id}`} onClick={() => remove(job.id)}>Remove</button>
          </li>
        ))}
      </ul>
    </div>
  );
}
